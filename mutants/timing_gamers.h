// SPDX-License-Identifier: MIT
// Two misbehaving kernels that steer a timer rather than the mathematics
// (issue #49; misbehaviour_list.h rows diff_cache and computes_every_fourth_call),
// each around a clean kernel whose outputs it returns or skips:
//   diff_cache keeps its last call's inputs and outputs and recomputes only
//     the tokens whose q, k or position changed: correct, and timed far
//     faster than its arithmetic when a bench changes few inputs per call;
//   computes_every_fourth_call computes on every fourth call of its process
//     and returns at once otherwise, its outputs as they arrived: a kernel
//     that guesses which calls are judged.
#ifndef ROPECHECK_MUTANTS_TIMING_GAMERS_H_
#define ROPECHECK_MUTANTS_TIMING_GAMERS_H_

#include <cstddef>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

ropecheck_status_t diff_cached_apply(const ropecheck_impl_t& clean, const ropecheck_apply_params_t* p, char* err,
                                     std::size_t n);
ropecheck_status_t every_fourth_call_apply(const ropecheck_impl_t& clean, const ropecheck_apply_params_t* p, char* err,
                                           std::size_t n);

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_TIMING_GAMERS_H_
