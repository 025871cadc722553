// SPDX-License-Identifier: MIT
/* The quantized output of ABI 1.8 (kernel_abi.h, ropecheck_quant_out_t) as
 * both sides read it: whether a call has one, what a valid one is, and
 * the one formula of a quantized element (scale, then the fp8 rounding).
 * C++ only, header-only (ROPECHECK_HD: CUDA kernels share it). */
#ifndef ROPECHECK_QUANT_OUT_H_
#define ROPECHECK_QUANT_OUT_H_

#include <cmath>
#include <cstdint>

#include "ropecheck/fp8.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The call's quantized output: NULL before ABI 1.8's params, and when it has none.
inline const ropecheck_quant_out_t* quant_out_of(const ropecheck_apply_params_t& p) {
  return p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_8 ? p.quant_out : nullptr;
}

// The fp8 format of a quant_out's dtype (FP8_E4M3FN or FP8_E5M2).
ROPECHECK_HD inline Fp8Format quant_format(std::uint32_t kv_dtype) {
  return kv_dtype == ROPECHECK_KV_FP8_E5M2 ? Fp8Format::kE5M2 : Fp8Format::kE4M3FN;
}

// One element's code: x (the rotated value in fp32, or a pass-through
// input) scaled once in fp32, x * scale (MULTIPLY, FlashInfer's
// pos_enc.cuh) or x / scale (DIVIDE), then rounded to nearest even.
ROPECHECK_HD inline std::uint8_t quantize_element(float x, float scale, std::uint32_t direction, Fp8Format f,
                                                  bool saturate) {
  const float scaled = direction == ROPECHECK_KV_SCALE_MULTIPLY ? x * scale : x / scale;
  return f32_to_fp8(scaled, f, saturate);
}

// nullptr when q is valid for a call (q_in_place: q_out == q_in), else the
// field and the bound.
inline const char* quant_out_error(const ropecheck_quant_out_t& q, bool q_in_place) {
  if (q.struct_size < sizeof(ropecheck_quant_out_t)) return "quant_out.struct_size: must be >= sizeof(ropecheck_quant_out_t)";
  if (q.dtype != ROPECHECK_KV_FP8_E4M3FN && q.dtype != ROPECHECK_KV_FP8_E5M2)
    return "quant_out.dtype: must be FP8_E4M3FN (3) or FP8_E5M2 (4)";
  if (!(q.q_scale > 0 && q.q_scale < HUGE_VALF)) return "quant_out.q_scale: must be finite and > 0";
  if (!(q.k_scale > 0 && q.k_scale < HUGE_VALF)) return "quant_out.k_scale: must be finite and > 0";
  if (q_in_place) return "quant_out: q_out must not be q_in (fp8 codes cannot overwrite the input in place)";
  return nullptr;
}

}  // namespace ropecheck

#endif  // ROPECHECK_QUANT_OUT_H_
