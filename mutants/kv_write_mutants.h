// SPDX-License-Identifier: MIT
// The KV-cache write rows of the bug catalogue (mutant_list.h, kv_*): the
// control kernel's rotation fused with a cache write declared as vLLM's
// (sat(x / scale) of the stored k), with the row's bug switched on.
#ifndef ROPECHECK_MUTANTS_KV_WRITE_MUTANTS_H_
#define ROPECHECK_MUTANTS_KV_WRITE_MUTANTS_H_

#include "mutants/mutant_list.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

bool is_kv_write_bug(Bug bug);
// The row's table around `rotation` (the control kernel's table).
ropecheck_impl_t kv_write_mutant_table(const BugInfo& info, const ropecheck_impl_t* rotation);

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_KV_WRITE_MUTANTS_H_
