// SPDX-License-Identifier: MIT
// The qk-norm rows of the bug catalogue (mutant_list.h, qk_norm_*): the
// control kernel's rotation fused with a per-head RMSNorm declared as vLLM's
// (fp32 kept, both weight forms, 1 ulp reciprocal square root), with the
// row's bug switched on.
#ifndef ROPECHECK_MUTANTS_QK_NORM_MUTANTS_H_
#define ROPECHECK_MUTANTS_QK_NORM_MUTANTS_H_

#include "mutants/mutant_list.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

bool is_qk_norm_bug(Bug bug);
// The row's table around `rotation` (the control kernel's table).
ropecheck_impl_t qk_norm_mutant_table(const BugInfo& info, const ropecheck_impl_t* rotation);

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_QK_NORM_MUTANTS_H_
