// SPDX-License-Identifier: MIT
// The caller cos/sin cache rows of the bug catalogue (mutant_list.h,
// cos_sin_cache_*): the rotation of scalar_caller_cache (ABI 1.6, a cache
// passed in by the caller, fp32 or the q/k dtype; its loop is
// impls/kernel_support/cache_rotation.h) with the row's bug switched on.
#ifndef ROPECHECK_MUTANTS_COS_SIN_CACHE_MUTANTS_H_
#define ROPECHECK_MUTANTS_COS_SIN_CACHE_MUTANTS_H_

#include "mutants/mutant_list.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

bool is_cos_sin_cache_bug(Bug bug);
ropecheck_impl_t cos_sin_cache_mutant_table(const BugInfo& info);

// The same kernel with no bug: the caller's cache read as it must be (the
// misbehaving kernel that writes into it, misbehaviour_list.h, is built on it).
const ropecheck_impl_t* caller_cache_control();

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_COS_SIN_CACHE_MUTANTS_H_
