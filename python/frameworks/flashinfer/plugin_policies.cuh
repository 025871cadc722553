// SPDX-License-Identifier: MIT
// What the plugin's tables declare (included once, by
// flashinfer_rope_plugin.cu): the precision policies of FlashInfer's
// arithmetic (flashinfer_rope_plugin.cu's head comment says why each part),
// the fp8 quantized output and cache write, the capabilities.
#pragma once

#include <cstdint>

#include "ropecheck/kernel_abi.h"
#include "ropecheck/policy.h"

namespace flashinfer_adapter {
namespace {

// The policy of the pos_ids kernels (the file's comment says why each part).
constexpr double kCosAbsError = 4.1799e-07;  // 2^-21.19 = 4.17998e-7 (__cosf on [-pi, pi]), rounded up
constexpr double kPi32 = 3.14159274101257324;  // fl32(pi): __sincosf's documented range
constexpr double kPhaseSlope = 1.5955e-7;  // docs/ERROR_MODEL.md, "__sinf / __cosf"
constexpr double kPowUlps = 5.0;           // __powf as exp2f(y * __log2f(x)) under -prec-div=false
constexpr ropecheck::Policy kPosIdsPolicy = ropecheck::with_subnormals_flushed(ropecheck::with_freq_form(
    ropecheck::with_libm_ulps(
        ropecheck::with_rotation(
            ropecheck::with_fast_range(ropecheck::fast_sincos_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT,
                                                                     kCosAbsError, ROPECHECK_DTYPE_F32,
                                                                     ROPECHECK_DTYPE_F32),
                                       kPi32, kPhaseSlope),
            ROPECHECK_ROTATION_FMA),
        0.0, kPowUlps),
    ROPECHECK_FREQ_EXP_LOG));
// The cache form: the caller's fp32 cos/sin, fp32 FMA rotation, FTZ (no angle, no sin/cos of its own).
constexpr ropecheck::Policy kCachePolicy = ropecheck::with_subnormals_flushed(ropecheck::with_rotation(
    ropecheck::libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32),
    ROPECHECK_ROTATION_FMA));

// rope_quantize_fp8_append_paged_kv_cache's fp8 (FlashInfer's binding
// takes e4m3fn and e5m2): x * quant_scale, saturated, from the fp32 rotation
// (not a stored value); one PER_TENSOR scale; k only appended.
constexpr uint32_t kFp8 = (1u << ROPECHECK_KV_FP8_E4M3FN) | (1u << ROPECHECK_KV_FP8_E5M2);
constexpr ropecheck_kv_policy_t kFp8KvPolicy{sizeof(ropecheck_kv_policy_t), kFp8,
                                             1u << ROPECHECK_KV_SCALE_PER_TENSOR, ROPECHECK_KV_SCALE_MULTIPLY, 1u, 0u};
constexpr ropecheck_quant_policy_t kFp8QuantPolicy{sizeof(ropecheck_quant_policy_t), kFp8,
                                                   ROPECHECK_KV_SCALE_MULTIPLY, 1u, ROPECHECK_QUANT_K_NOT_RETURNED, 0u};

constexpr uint32_t kBothLayouts = (1u << ROPECHECK_LAYOUT_INTERLEAVED) | (1u << ROPECHECK_LAYOUT_HALF_SPLIT);
constexpr uint32_t kDtypes = (1u << ROPECHECK_DTYPE_F16) | (1u << ROPECHECK_DTYPE_BF16);
// In place (q == q_rope, pos_enc.cuh:700) and out of place, partial rotary, int32 and int64 ids
// (DISPATCH_DLPACK_IDTYPE_TO_CTYPE, csrc/rope.cu:101), declines (head_dim, and the vector misfit).
constexpr uint32_t kFlags = ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_PARTIAL_ROTARY |
                            ROPECHECK_CAP_POS_INT32 | ROPECHECK_CAP_POS_INT64 | ROPECHECK_CAP_MAY_DECLINE;

}  // namespace
}  // namespace flashinfer_adapter
