// SPDX-License-Identifier: MIT
// check_apply's checkers of the optional parts a call may carry (1.4's KV write, 1.5's qk-norm, 1.8's quantized output).
#include <cstdint>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/abi_checkers.h"
#include "ropecheck/capabilities.h"
#include "ropecheck/kv_write.h"
#include "ropecheck/qk_norm.h"
#include "ropecheck/quant_out.h"

namespace ropecheck::impl::checks {
namespace {

// Where set_error writes the reason (check_apply's err and its size).
struct ErrorText {
  char* err;
  std::size_t n;
};

// The rule every optional part follows: absent is fine; present, the kernel
// must grant its capability (else UNSUPPORTED, naming the part) and its
// fields must hold (why(): nullptr, else INVALID_ARGUMENT with its reason).
// The next ABI part is one call of this with its flag and its field check.
template <class Why>
ropecheck_status_t check_part(const void* part, const ropecheck_caps_t& caps, std::uint32_t flag,
                              const char* unsupported, Why why, ErrorText e) {
  if (part == nullptr) return ROPECHECK_OK;
  if (!(caps.flags & flag)) {
    set_error(e.err, e.n, "%s", unsupported);
    return ROPECHECK_UNSUPPORTED;
  }
  if (const char* reason = why()) {
    set_error(e.err, e.n, "%s", reason);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  return ROPECHECK_OK;
}

}  // namespace

// ABI 1.4: a cache write only for a kernel granting it; its fields for one
// that does.
ropecheck_status_t check_kv_write(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                  std::size_t n) {
  const ropecheck_kv_write_t* kw = kv_write_of(*p);
  return check_part(kw, caps, ROPECHECK_CAP_KV_CACHE_WRITE,
                    "kv_write: a KV-cache write is not supported by this implementation",
                    [&] { return kv_write_error(*kw, p->num_tokens, p->num_kv_heads, p->head_dim, p->rotary_dim); },
                    {err, n});
}

// ABI 1.5: a qk-norm only for a kernel granting it.
ropecheck_status_t check_qk_norm(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                 std::size_t n) {
  const ropecheck_qk_norm_t* qn = qk_norm_of(*p);
  return check_part(qn, caps, ROPECHECK_CAP_QK_NORM, "qk_norm: a qk-norm is not supported by this implementation",
                    [&] { return qk_norm_error(*qn, p->num_kv_heads); }, {err, n});
}

// ABI 1.8: a quantized output only for a kernel granting it; its fields
// (the fp8 dtype, finite positive scales, out of place) for one that does.
ropecheck_status_t check_quant_out(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                   std::size_t n) {
  const ropecheck_quant_out_t* qo = quant_out_of(*p);
  return check_part(qo, caps, ROPECHECK_CAP_QUANTIZED_OUTPUT,
                    "quant_out: a quantized output is not supported by this implementation",
                    [&] { return quant_out_error(*qo, p->num_q_heads > 0 && p->q_out == p->q_in); }, {err, n});
}

}  // namespace ropecheck::impl::checks
