// The mutant kernels in process: one ABI table per row of the bug catalogue
// (mutant_list.h), all built from one clean kernel with the row's bug
// switched on; and the misbehaving kernels that test isolation and plugin
// loading (crashes, hangs, unwritten outputs, bad tables). plugin_entry.cc exports
// one of them per shared library.
#ifndef ROPECHECK_MUTANTS_MUTANT_KERNEL_H_
#define ROPECHECK_MUTANTS_MUTANT_KERNEL_H_

#include <string_view>

#include "mutants/mutant_list.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

const ropecheck_impl_t* mutant_impl(Bug bug);
// nullptr when no catalogue row is named `name` ("mutant_<bug>").
const ropecheck_impl_t* find_mutant(std::string_view name);

// The control kernel (Bug::none) with one way of misbehaving:
enum class Misbehaviour {
  crash = 1,      // a wild write on cases with more than 3 tokens
  hang = 2,       // an endless loop on cases with more than 3 tokens
  unwritten = 3,  // the last rotated channel of every q head never written
  wrong_abi = 4,  // the table claims ABI version 99
  bad_caps = 5,   // declares a cos/sin cache but exports no build_cache
  no_entry = 6,   // the library exports no ropecheck_get_impls (plugin_entry.cc)
};
const ropecheck_impl_t* misbehaving_impl(Misbehaviour m);

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_MUTANT_KERNEL_H_
