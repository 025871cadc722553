// Kernels with one bug planted, selectable in the differential fuzzer by
// name (ROPECHECK_FUZZ_IMPL) to show that fuzzing finds bugs a short-context
// test would not. Not registered anywhere else.
#ifndef ROPECHECK_FUZZ_PLANTED_MUTANTS_H_
#define ROPECHECK_FUZZ_PLANTED_MUTANTS_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck::fuzz {

// The per-pair kernel, but pairing with the other layout for positions > 4096.
const ropecheck_impl_t* layout_swap_above_4096();
// The per-pair kernel, but pairing with the other layout when head_dim >= 192.
const ropecheck_impl_t* layout_swap_head_dim_192();

}  // namespace ropecheck::fuzz

#endif  // ROPECHECK_FUZZ_PLANTED_MUTANTS_H_
