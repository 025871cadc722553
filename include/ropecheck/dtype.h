// SPDX-License-Identifier: MIT
// Storage dtypes: bit-exact conversions between fp32 and fp16/bf16, round to
// nearest even, NaN kept quiet. Shared by the kernels (host and, through
// ROPECHECK_HD, device code) and by the gate that builds inputs.
#ifndef ROPECHECK_DTYPE_H_
#define ROPECHECK_DTYPE_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ropecheck/kernel_abi.h"
#include "ropecheck/names.h"

#if defined(__CUDACC__)
#define ROPECHECK_HD __host__ __device__
#else
#define ROPECHECK_HD
#endif

namespace ropecheck {

// memcpy rather than std::bit_cast so the same code compiles as CUDA C++17
// device code; compilers turn it into a register move.
ROPECHECK_HD inline std::uint32_t f32_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
ROPECHECK_HD inline float f32_from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// fp32 -> bf16: keep the top 16 bits after rounding the low 16 to nearest even.
ROPECHECK_HD inline std::uint16_t f32_to_bf16(float f) {
  std::uint32_t b = f32_bits(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((b >> 16) | 0x0040u);
  b += 0x7fffu + ((b >> 16) & 1u);
  return static_cast<std::uint16_t>(b >> 16);
}
ROPECHECK_HD inline float bf16_to_f32(std::uint16_t h) {
  return f32_from_bits(static_cast<std::uint32_t>(h) << 16);
}

// fp32 -> IEEE binary16, round to nearest even, including the subnormal range.
ROPECHECK_HD inline std::uint16_t f32_to_f16(float f) {
  const std::uint32_t b = f32_bits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((b >> 16) & 0x8000u);
  const std::uint32_t abs = b & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to Inf
  if (abs < 0x38800000u) {                        // below 2^-14: subnormal or zero
    // Value = abs_float; quantum 2^-24. Add a large constant so the FPU does
    // the RNE shift, as is standard: 0.5f has exponent making ulp = 2^-24.
    const float mag = f32_from_bits(abs) + 0.5f;
    return sign | static_cast<std::uint16_t>(f32_bits(mag) - f32_bits(0.5f));
  }
  std::uint32_t m = abs + 0xc8000fffu + ((abs >> 13) & 1u);  // rebias exponent (-112<<23) and round
  return sign | static_cast<std::uint16_t>(m >> 13);
}
ROPECHECK_HD inline float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0u));
  if (exp == 0) {
    // Subnormal: man * 2^-24, exact in fp32.
    const float v = static_cast<float>(man) * 5.9604644775390625e-08f;
    return f32_from_bits(sign | f32_bits(v));
  }
  return f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

// Element size and names.
constexpr std::size_t dtype_size(ropecheck_dtype_t t) {
  switch (t) {
    case ROPECHECK_DTYPE_F32: return 4;
    case ROPECHECK_DTYPE_F16: return 2;
    case ROPECHECK_DTYPE_BF16: return 2;
    case ROPECHECK_DTYPE_F64: return 8;
    default: return 0;
  }
}

// Significand bits (with the hidden bit), minimum normal exponent and maximum
// exponent: what the error model and the correct rounding need of a dtype.
struct DtypeFormat {
  int precision;  // p: 24 for fp32
  int emin;       // smallest normal is 2^emin
  int emax;       // largest finite is (2 - 2^(1-p)) * 2^emax
};
constexpr DtypeFormat dtype_format(ropecheck_dtype_t t) {
  switch (t) {
    case ROPECHECK_DTYPE_F16: return {11, -14, 15};
    case ROPECHECK_DTYPE_BF16: return {8, -126, 127};
    case ROPECHECK_DTYPE_F64: return {53, -1022, 1023};
    case ROPECHECK_DTYPE_F32:
    default: return {24, -126, 127};
  }
}

// Largest finite value of dtype t: (2 - 2^(1-p)) 2^emax.
inline double max_finite(ropecheck_dtype_t t) {
  const DtypeFormat f = dtype_format(t);
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax);
}
// Magnitude from which round to nearest gives infinity: the largest finite
// value plus half an ulp, (2 - 2^-p) 2^emax.
inline double overflow_threshold(ropecheck_dtype_t t) {
  const DtypeFormat f = dtype_format(t);
  return std::ldexp(2.0 - std::ldexp(1.0, -f.precision), f.emax);
}

// Loads element i of a buffer of dtype t as double (exact for every dtype).
inline double load_as_double(const void* base, std::size_t i, ropecheck_dtype_t t) {
  switch (t) {
    case ROPECHECK_DTYPE_F32: return static_cast<const float*>(base)[i];
    case ROPECHECK_DTYPE_F16: return f16_to_f32(static_cast<const std::uint16_t*>(base)[i]);
    case ROPECHECK_DTYPE_BF16: return bf16_to_f32(static_cast<const std::uint16_t*>(base)[i]);
    case ROPECHECK_DTYPE_F64: return static_cast<const double*>(base)[i];
    default: return 0.0;
  }
}

}  // namespace ropecheck

#endif  // ROPECHECK_DTYPE_H_
