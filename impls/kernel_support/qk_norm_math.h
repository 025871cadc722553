// SPDX-License-Identifier: MIT
// The per-head RMSNorm of a fused qk-norm kernel (ABI 1.5) in the
// arithmetics the engines ship, shared by the built-in fused kernels and the
// qk-norm mutants so the norm is written once:
//   KEEP_F32             every step in fp32, the result fed on in fp32
//                        (vLLM's csrc/fused_qknorm_rope_kernel.cu and
//                        TensorRT-LLM's fusedQKNormRopeKernel:
//                        `x *= rms_rcp * weight`);
//   ROUND_BEFORE_WEIGHT  fl_S(x r) times the weight, rounded to S
//                        (transformers' Qwen3RMSNorm);
//   ROUND_AFTER_WEIGHT   x r w' in fp32, then rounded to S
//                        (transformers' Gemma3RMSNorm).
// r = 1.0f / sqrtf(mean(x^2) + eps): two correct roundings, the 1 ulp the
// kernels declare. The sum of squares runs in channel order in fp32 (a
// warp's butterfly is another order: E10 bounds every order alike).
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_QK_NORM_MATH_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_QK_NORM_MATH_H_

#include <cmath>
#include <cstdint>

#include "impls/kernel_support/head_io.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

struct NormArithmetic {
  std::uint32_t form = ROPECHECK_NORM_WEIGHT_W;         // ropecheck_norm_weight_form_t applied
  std::uint32_t intermediate = ROPECHECK_NORM_KEEP_F32;  // ropecheck_norm_intermediate_t
  // What a kernel's statistic covers: its first `stat_channels` channels
  // (0: all head_dim, as the ABI says), and whether eps is added. A correct
  // kernel leaves both at their defaults; the catalogue's rows change them.
  int stat_channels = 0;
  bool add_eps = true;
};

// v rounded to the storage dtype (nearest even), as a float.
inline float round_to_storage(float v, std::uint32_t dtype) {
  switch (dtype) {
    case ROPECHECK_DTYPE_F16: return f16_to_f32(f32_to_f16(v));
    case ROPECHECK_DTYPE_BF16: return bf16_to_f32(f32_to_bf16(v));
    default: return v;
  }
}

// x and w: d storage values (as floats); out: d normalised values, in fp32
// for KEEP_F32, else values of the storage dtype.
inline void rms_norm_head(const float* x, int d, const float* w, float eps, const NormArithmetic& a,
                          std::uint32_t storage, float* out) {
  const int m = a.stat_channels > 0 && a.stat_channels < d ? a.stat_channels : d;
  float sum = 0.0f;
  for (int j = 0; j < m; ++j) sum += x[j] * x[j];
  const float mean = sum / static_cast<float>(m);
  const float r = 1.0f / std::sqrt(a.add_eps ? mean + eps : mean);
  const bool one_plus = a.form == ROPECHECK_NORM_WEIGHT_ONE_PLUS_W;
  for (int j = 0; j < d; ++j) {
    const float wj = one_plus ? 1.0f + w[j] : w[j];
    switch (a.intermediate) {
      case ROPECHECK_NORM_ROUND_BEFORE_WEIGHT:
        out[j] = round_to_storage(round_to_storage(x[j] * r, storage) * round_to_storage(wj, storage), storage);
        break;
      case ROPECHECK_NORM_ROUND_AFTER_WEIGHT: out[j] = round_to_storage(x[j] * r * wj, storage); break;
      default: out[j] = x[j] * (r * wj); break;
    }
  }
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_QK_NORM_MATH_H_
