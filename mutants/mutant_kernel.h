// SPDX-License-Identifier: MIT
// The mutant kernels in process: one ABI table per row of the bug catalogue
// (mutant_list.h), all built from one clean kernel with the row's bug
// switched on; and the misbehaving kernels that test isolation, plugin
// loading and the verdict (misbehaving_kernel.cc). plugin_entry.cc exports
// one of them per shared library.
#ifndef ROPECHECK_MUTANTS_MUTANT_KERNEL_H_
#define ROPECHECK_MUTANTS_MUTANT_KERNEL_H_

#include <string_view>

#include "mutants/misbehaviour_list.h"
#include "mutants/mutant_list.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

const ropecheck_impl_t* mutant_impl(Bug bug);
// nullptr when no catalogue row is named `name` ("mutant_<bug>").
const ropecheck_impl_t* find_mutant(std::string_view name);

// The control kernel (Bug::none) with one way of misbehaving toward the
// harness (mutants/misbehaviour_list.h).
const ropecheck_impl_t* misbehaving_impl(Misbehaviour m);

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_MUTANT_KERNEL_H_
