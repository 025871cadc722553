// SPDX-License-Identifier: MIT
// Writing one element of a KV cache (ABI 1.4): an fp32 value rounded to the
// cache dtype, to nearest even, out of range saturated (fp16, bf16 and fp8
// alike) or not as the kernel declares (kernel_abi.h, ropecheck_kv_policy_t). Shared by the fused
// kernels and the fused mutants, so the store is one place.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_KV_STORE_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_KV_STORE_H_

#include <cstdint>
#include <cstring>

#include "ropecheck/dtype.h"
#include "ropecheck/fp8.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

ROPECHECK_HD inline void store_kv(void* cache, std::int64_t i, std::uint32_t dtype, float y, bool saturate) {
  switch (dtype) {
    case ROPECHECK_KV_F32: std::memcpy(static_cast<float*>(cache) + i, &y, 4); break;
    case ROPECHECK_KV_F16: {
      if (saturate && y > 65504.0f) y = 65504.0f;
      if (saturate && y < -65504.0f) y = -65504.0f;
      const std::uint16_t b = f32_to_f16(y);
      std::memcpy(static_cast<std::uint16_t*>(cache) + i, &b, 2);
      break;
    }
    case ROPECHECK_KV_BF16: {
      // Saturating covers every cache dtype (abi_kv_write.h): bf16 too, whose
      // largest finite value 0x7f7f lies below fp32's (the tie just past it
      // rounds to infinity; issue #48's boundary values found it unsaturated).
      constexpr float kMax = 0x1.fep127f;
      if (saturate && y > kMax) y = kMax;
      if (saturate && y < -kMax) y = -kMax;
      const std::uint16_t b = f32_to_bf16(y);
      std::memcpy(static_cast<std::uint16_t*>(cache) + i, &b, 2);
      break;
    }
    case ROPECHECK_KV_FP8_E4M3FN:
      static_cast<std::uint8_t*>(cache)[i] = f32_to_fp8(y, Fp8Format::kE4M3FN, saturate);
      break;
    default: static_cast<std::uint8_t*>(cache)[i] = f32_to_fp8(y, Fp8Format::kE5M2, saturate); break;
  }
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_KV_STORE_H_
