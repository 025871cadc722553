// SPDX-License-Identifier: MIT
/* The qk-norm of ABI 1.5 (kernel_abi.h, ropecheck_qk_norm_t) as both sides
 * read it: whether a call has one and what a valid one is. C++ only,
 * header-only. */
#ifndef ROPECHECK_QK_NORM_H_
#define ROPECHECK_QK_NORM_H_

#include <cmath>

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The call's norm: NULL before ABI 1.5's params, and when it has none.
inline const ropecheck_qk_norm_t* qk_norm_of(const ropecheck_apply_params_t& p) {
  return p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_5 ? p.qk_norm : nullptr;
}

// nullptr when the norm is valid for a call with (num_kv_heads > 0) or
// without a k, else the field and the bound.
inline const char* qk_norm_error(const ropecheck_qk_norm_t& n, int num_kv_heads) {
  if (n.struct_size < sizeof(ropecheck_qk_norm_t)) return "qk_norm.struct_size: must be >= sizeof(ropecheck_qk_norm_t)";
  if (n.weight_form >= ROPECHECK_NORM_WEIGHT_FORM_COUNT) return "qk_norm.weight_form: must be W (0) or ONE_PLUS_W (1)";
  if (!(n.eps > 0 && n.eps < HUGE_VALF)) return "qk_norm.eps: must be finite and > 0";
  if (n.reserved != 0) return "qk_norm.reserved: must be 0";
  if (n.q_weight == nullptr) return "qk_norm.q_weight: must not be null";
  if ((n.k_weight == nullptr) != (num_kv_heads == 0)) return "qk_norm.k_weight: set exactly when the call has a k";
  return nullptr;
}

}  // namespace ropecheck

#endif  // ROPECHECK_QK_NORM_H_
