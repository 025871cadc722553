// SPDX-License-Identifier: MIT
// E9, the write of a rotated k (or of a v) into a KV cache: the codes of the
// cache dtype a correct kernel may write for one element, given the exact
// value, the error bound on the kernel's value before the write (E2-E6' of
// the k output, 0 for a v), the scale and how the kernel declares it applies
// it. Judged in the cache's code space (docs/ERROR_MODEL.md, "E9"): a
// quantized cache is compared code by code, as its bytes are read back.
#ifndef ROPECHECK_CORE_ERROR_MODEL_CACHE_WRITE_BUDGET_H_
#define ROPECHECK_CORE_ERROR_MODEL_CACHE_WRITE_BUDGET_H_

#include <cstdint>
#include <string>

#include "ropecheck/fp8.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/kv_write.h"

namespace ropecheck {

// The dtypes a KV cache is stored in, with the ABI's values (kernel_abi.h,
// ropecheck_kv_dtype_t).
enum class KvDtype : std::uint8_t {
  kF32 = ROPECHECK_KV_F32,
  kF16 = ROPECHECK_KV_F16,
  kBF16 = ROPECHECK_KV_BF16,
  kE4M3FN = ROPECHECK_KV_FP8_E4M3FN,
  kE5M2 = ROPECHECK_KV_FP8_E5M2
};
inline constexpr int kKvDtypeCount = ROPECHECK_KV_DTYPE_COUNT;
const char* kv_dtype_name(KvDtype d);
// A KV dtype's element size: the ABI's one table (ropecheck/kv_write.h).
inline std::size_t kv_dtype_size(KvDtype d) { return kv_dtype_size(static_cast<std::uint32_t>(d)); }

// How the scale enters: vLLM stores sat(x / k_scale) (csrc/quantization/
// w8a8/fp8/nvidia/quant_utils.cuh: "FP8_data = Quantization(High_Precision_
// data / scale)"); FlashInfer (include/flashinfer/pos_enc.cuh) and
// TensorRT-LLM (qkv_scale_orig_quant) multiply by a quantization scale,
// the reciprocal of the dequantization scale.
enum class ScaleDirection : std::uint8_t { kDivide, kMultiply };

// The declared arithmetic of a cache write. The scale operation is one fp32
// rounding (the engines compute it in fp32 whatever the activation dtype);
// the cache dtype's rounding is to nearest even.
struct CacheWritePolicy {
  KvDtype cache = KvDtype::kF32;
  ScaleDirection direction = ScaleDirection::kDivide;
  // Out of range: the largest finite value of the sign (CUDA's
  // __NV_SATFINITE) rather than the format's overflow (infinity; NaN for
  // e4m3fn, which has no infinity).
  bool saturate = true;
  // The value scaled is the rotated k as stored in the activation dtype
  // (vLLM's unfused rotary_embedding then reshape_and_cache_flash, which
  // its fused kernel matches bit for bit), not the math dtype's value
  // (FlashInfer's rope_quantize: rotated in fp32, scaled, quantized).
  bool via_storage = false;
};

// A code's position on the cache dtype's number line: +0 and -0 are 0, each
// step to the next representable magnitude is 1; the overflow code (infinity,
// or e4m3fn's NaN) is one past the largest finite value; other NaNs lie
// beyond every finite code.
std::int64_t code_ordinal(std::uint32_t code, KvDtype d);
// The code of x rounded to nearest even in d, out of range as `saturate`
// says (every double; NaN gives the canonical NaN).
std::uint32_t round_to_cache_code(double x, KvDtype d, bool saturate);
// Its value (NaN for a NaN code).
double cache_code_value(std::uint32_t code, KvDtype d);

struct CacheElementBudget {
  double center = 0;  // the exact stored quantity, exact / s (or exact * qs), as a double
  double radius = 0;  // bound on |kernel's scaled value - center| before the cache rounding
  std::int64_t lo = 0, hi = 0;  // the admissible codes, as ordinals: every correct kernel's code lies in [lo, hi]
  bool admits(std::uint32_t code, KvDtype d) const {
    const std::int64_t o = code_ordinal(code, d);
    return o >= lo && o <= hi;
  }
  // Codes between `code` and the admissible interval (0 inside it).
  std::int64_t steps_outside(std::uint32_t code, KvDtype d) const;
};

// exact: the exact value written (the rotated k element, or the v element);
// pre_error: bound on |kernel's value in its math dtype - exact| (0 for v);
// storage: the activation dtype (read when via_storage); scale: the fp32
// scale the kernel is given (k_scale or v_scale: dequantization scale for
// kDivide, quantization scale for kMultiply; 1 for an unscaled cache).
CacheElementBudget cache_element_budget(double exact, double pre_error, ropecheck_dtype_t storage, float scale,
                                        const CacheWritePolicy& policy);

// "e4m3fn code 0x3c (1.5) at ordinal 60, admissible [58, 59] around 1.37/0.7 = 1.957 +- 0.004".
std::string explain_cache_element(std::uint32_t code, const CacheElementBudget& b, KvDtype d);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ERROR_MODEL_CACHE_WRITE_BUDGET_H_
