// SPDX-License-Identifier: MIT
// The rotation fused with the per-head qk-norm (ABI 1.5, CAP_QK_NORM), over
// scalar_naive's rotation (fp32 frequencies, fp32 product angle,
// sinf/cosf, fp32 math), in the three arithmetics of
// impls/kernel_support/qk_norm_math.h:
//   scalar_fused_qk_norm_vllm   the norm kept in fp32 and rotated from fp32
//                               (vLLM's fused_qk_norm_rope, from TensorRT-LLM);
//   scalar_fused_qk_norm_qwen3  rounded to the activation dtype before the
//                               weight (transformers' Qwen3RMSNorm, then
//                               apply_rotary_pos_emb);
//   scalar_fused_qk_norm_gemma  rounded after the weight (Gemma3RMSNorm).
// Both weight forms (w, 1 + w). A call without a norm is a plain rotation.
// The examples to copy for a fused norm: every field read through
// ropecheck/qk_norm.h, every rounding explicit.
#include <cstdint>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/qk_norm_fused.h"
#include "impls/scalar/scalar_impls.h"
#include "ropecheck/qk_norm.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps = standard_caps(kBothLayouts, ROPECHECK_CAP_QK_NORM);

template <std::uint32_t Intermediate>
ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const ropecheck_impl_t& rotate = *scalar_naive_impl();
  const ropecheck_qk_norm_t* qn = qk_norm_of(*p);
  if (qn == nullptr) return rotate.apply(rotate.ctx, p, err, n);
  FusedNormOptions o;
  o.arithmetic.form = qn->weight_form;
  o.arithmetic.intermediate = Intermediate;
  return norm_then_rotate(rotate, *p, *qn, o, err, n);
}

ropecheck_impl_t norm_table(const char* name, const char* description,
                            decltype(ropecheck_impl_t::apply) fn, std::uint32_t intermediate) {
  ropecheck_impl_t t = kernel_table(
      name, description, kCaps,
      libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32), fn);
  t.norm_policy = ropecheck_norm_policy_t{sizeof(ropecheck_norm_policy_t), (1u << ROPECHECK_NORM_WEIGHT_FORM_COUNT) - 1u,
                                          intermediate, 0u, 1.0};
  return t;
}

}  // namespace

const ropecheck_impl_t* scalar_fused_qk_norm_vllm_impl() {
  static const ropecheck_impl_t impl = norm_table(
      "scalar_fused_qk_norm_vllm", "per-head RMSNorm kept in fp32, then scalar_naive's rotation (vLLM fused_qk_norm_rope)",
      apply<ROPECHECK_NORM_KEEP_F32>, ROPECHECK_NORM_KEEP_F32);
  return &impl;
}

const ropecheck_impl_t* scalar_fused_qk_norm_qwen3_impl() {
  static const ropecheck_impl_t impl = norm_table(
      "scalar_fused_qk_norm_qwen3",
      "per-head RMSNorm rounded to the activation dtype before the weight, then scalar_naive's rotation (Qwen3RMSNorm)",
      apply<ROPECHECK_NORM_ROUND_BEFORE_WEIGHT>, ROPECHECK_NORM_ROUND_BEFORE_WEIGHT);
  return &impl;
}

const ropecheck_impl_t* scalar_fused_qk_norm_gemma_impl() {
  static const ropecheck_impl_t impl = norm_table(
      "scalar_fused_qk_norm_gemma",
      "per-head RMSNorm rounded to the activation dtype after the weight, then scalar_naive's rotation (Gemma3RMSNorm)",
      apply<ROPECHECK_NORM_ROUND_AFTER_WEIGHT>, ROPECHECK_NORM_ROUND_AFTER_WEIGHT);
  return &impl;
}

}  // namespace ropecheck::impl
