// SPDX-License-Identifier: MIT
// The two 8-bit floating-point formats of the OCP "8-bit Floating Point
// Specification (OFP8)", Revision 1.0 (2023), that KV caches are stored in:
//   E4M3 ("e4m3fn": bias 7, no infinities, one NaN per sign S.1111.111,
//         largest finite 448 = S.1111.110, smallest normal 2^-6, subnormals
//         m * 2^-9);
//   E5M2 (IEEE-754-like: bias 15, S.11111.00 is infinity, S.11111.xx NaN,
//         largest finite 57344 = S.11110.11, smallest normal 2^-14,
//         subnormals m * 2^-16).
// Conversion from fp32 rounds to nearest, ties to even, on the integer bits
// (no dependence on the floating-point environment a kernel may leave
// changed). Out of range, the conversion either saturates to the largest
// finite value of the sign (CUDA's __NV_SATFINITE, what vLLM's and
// FlashInfer's cache writes use) or does not (PyTorch's .to(float8_*): e4m3fn
// has no infinity and gives NaN, e5m2 gives infinity). NaN stays NaN in both.
// Shared by kernels (host and, through ROPECHECK_HD, device code), the
// reference's expected cache bytes and the judge's code-space distance.
#ifndef ROPECHECK_FP8_H_
#define ROPECHECK_FP8_H_

#include <cstdint>

#include "ropecheck/dtype.h"

namespace ropecheck {

enum class Fp8Format : std::uint8_t { kE4M3FN = 0, kE5M2 = 1 };

struct Fp8Spec {
  int mantissa_bits;      // M: 3 or 2
  int bias;               // 7 or 15
  int emin;               // unbiased exponent of the smallest normal
  std::uint8_t max_code;  // magnitude code of the largest finite value
  std::uint8_t nan_code;  // magnitude code of the canonical NaN
  std::uint8_t overflow_code;  // magnitude code of a non-saturated overflow: NaN (e4m3fn) or infinity (e5m2)
};

ROPECHECK_HD constexpr Fp8Spec fp8_spec(Fp8Format f) {
  return f == Fp8Format::kE4M3FN ? Fp8Spec{3, 7, -6, 0x7e, 0x7f, 0x7f} : Fp8Spec{2, 15, -14, 0x7b, 0x7e, 0x7c};
}

// Decodes an fp8 byte exactly (every fp8 value is an fp32 value).
ROPECHECK_HD inline float fp8_to_f32(std::uint8_t code, Fp8Format f) {
  const Fp8Spec s = fp8_spec(f);
  const std::uint32_t sign = static_cast<std::uint32_t>(code & 0x80u) << 24;
  const int mag = code & 0x7f;
  const int exp_field = mag >> s.mantissa_bits;
  const int man = mag & ((1 << s.mantissa_bits) - 1);
  if (f == Fp8Format::kE4M3FN && mag == 0x7f) return f32_from_bits(sign | 0x7fc00000u);
  if (f == Fp8Format::kE5M2 && exp_field == 31) return f32_from_bits(sign | (man ? 0x7fc00000u : 0x7f800000u));
  if (exp_field == 0) {
    // Subnormal: man * 2^(emin - M); exact in fp32, sign kept for zero.
    const float v = static_cast<float>(man) * f32_from_bits(static_cast<std::uint32_t>(127 + s.emin - s.mantissa_bits) << 23);
    return f32_from_bits(sign | f32_bits(v));
  }
  const std::uint32_t e32 = static_cast<std::uint32_t>(exp_field - s.bias + 127);
  return f32_from_bits(sign | (e32 << 23) | (static_cast<std::uint32_t>(man) << (23 - s.mantissa_bits)));
}

// fp32 -> fp8, round to nearest even; `saturate` as described above.
ROPECHECK_HD inline std::uint8_t f32_to_fp8(float x, Fp8Format f, bool saturate) {
  const Fp8Spec s = fp8_spec(f);
  const std::uint32_t b = f32_bits(x);
  const std::uint8_t sign = static_cast<std::uint8_t>((b >> 24) & 0x80u);
  const std::uint32_t a = b & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | s.nan_code;
  const std::uint8_t over = saturate ? s.max_code : s.overflow_code;
  if (a == 0x7f800000u) return sign | over;
  if (a < 0x00800000u) return sign;  // fp32 zero or subnormal: far below half the smallest fp8 subnormal
  const int e = static_cast<int>(a >> 23) - 127;                     // unbiased exponent of x
  const std::uint64_t m24 = (a & 0x7fffffu) | 0x800000u;             // x = m24 * 2^(e - 23)
  const int q = (e > s.emin ? e : s.emin) - s.mantissa_bits;         // exponent of the fp8 quantum at x
  const int shift = 23 + q - e;                                      // x / 2^q = m24 >> shift (>= 20)
  if (shift > 40) return sign;                                       // below a quarter quantum
  std::uint64_t n = m24 >> shift;
  const std::uint64_t rem = m24 & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (n & 1u))) ++n;
  if (n == 0) return sign;
  // n quanta of 2^q: below 2^M it is a subnormal (q at its minimum), else a
  // normal whose exponent field counts from q + M; a carry to 2^(M+1) moves
  // up one binade.
  int exp_field = 0;
  std::uint64_t man = n;
  if (n >= (std::uint64_t{1} << s.mantissa_bits)) {
    int eq = q + s.mantissa_bits;
    if (n == (std::uint64_t{1} << (s.mantissa_bits + 1))) {
      n >>= 1;
      ++eq;
    }
    exp_field = eq + s.bias;
    man = n - (std::uint64_t{1} << s.mantissa_bits);
  }
  const int mag = (exp_field << s.mantissa_bits) | static_cast<int>(man);
  if (mag > s.max_code) return sign | over;
  return static_cast<std::uint8_t>(sign | mag);
}

// Distance in codes between two finite fp8 values: the number of
// representable values stepped over going from a to b (0 for +0 and -0).
// The judge reads an fp8 output in these steps, as a quantized tensor is
// compared byte by byte.
ROPECHECK_HD inline int fp8_code_distance(std::uint8_t a, std::uint8_t b) {
  const auto ordinal = [](std::uint8_t c) { return (c & 0x80u) ? -static_cast<int>(c & 0x7fu) : static_cast<int>(c & 0x7fu); };
  const int d = ordinal(a) - ordinal(b);
  return d < 0 ? -d : d;
}

inline const char* fp8_format_name(Fp8Format f) { return f == Fp8Format::kE4M3FN ? "e4m3fn" : "e5m2"; }

}  // namespace ropecheck

#endif  // ROPECHECK_FP8_H_
