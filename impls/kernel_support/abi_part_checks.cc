// SPDX-License-Identifier: MIT
// check_apply's checkers of the optional parts a call may carry (1.4's KV write, 1.5's qk-norm, 1.8's quantized output).
#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/abi_checkers.h"
#include "ropecheck/capabilities.h"
#include "ropecheck/kv_write.h"
#include "ropecheck/qk_norm.h"
#include "ropecheck/quant_out.h"

namespace ropecheck::impl::checks {

// ABI 1.4: a cache write only for a kernel granting it; its fields for one
// that does.
ropecheck_status_t check_kv_write(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                  std::size_t n) {
  const ropecheck_kv_write_t* kw = kv_write_of(*p);
  if (kw == nullptr) return ROPECHECK_OK;
  if (!(caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE)) {
    set_error(err, n, "kv_write: a KV-cache write is not supported by this implementation");
    return ROPECHECK_UNSUPPORTED;
  }
  if (const char* why = kv_write_error(*kw, p->num_tokens, p->num_kv_heads, p->head_dim, p->rotary_dim)) {
    set_error(err, n, "%s", why);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  return ROPECHECK_OK;
}

// ABI 1.5: a qk-norm only for a kernel granting it.
ropecheck_status_t check_qk_norm(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                 std::size_t n) {
  const ropecheck_qk_norm_t* qn = qk_norm_of(*p);
  if (qn == nullptr) return ROPECHECK_OK;
  if (!(caps.flags & ROPECHECK_CAP_QK_NORM)) {
    set_error(err, n, "qk_norm: a qk-norm is not supported by this implementation");
    return ROPECHECK_UNSUPPORTED;
  }
  if (const char* why = qk_norm_error(*qn, p->num_kv_heads)) {
    set_error(err, n, "%s", why);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  return ROPECHECK_OK;
}

// ABI 1.8: a quantized output only for a kernel granting it; its fields
// (the fp8 dtype, finite positive scales, out of place) for one that does.
ropecheck_status_t check_quant_out(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                   std::size_t n) {
  const ropecheck_quant_out_t* qo = quant_out_of(*p);
  if (qo == nullptr) return ROPECHECK_OK;
  if (!(caps.flags & ROPECHECK_CAP_QUANTIZED_OUTPUT)) {
    set_error(err, n, "quant_out: a quantized output is not supported by this implementation");
    return ROPECHECK_UNSUPPORTED;
  }
  if (const char* why = quant_out_error(*qo, p->num_q_heads > 0 && p->q_out == p->q_in)) {
    set_error(err, n, "%s", why);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  return ROPECHECK_OK;
}

}  // namespace ropecheck::impl::checks
