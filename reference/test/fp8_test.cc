// SPDX-License-Identifier: MIT
// The fp8 conversions of ropecheck/fp8.h against the published format
// definition (OCP OFP8 Rev. 1.0, Table 1 and Table 2: the largest and smallest
// values of E4M3 and E5M2) and against a brute-force nearest-value search
// over every code, on every fp32 sign, exponent and top ten mantissa bits
// with the low bits at, just above and just below each rounding tie.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ropecheck/float_compare.h"
#include "ropecheck/fp8.h"

namespace ropecheck {
namespace {

constexpr Fp8Format kFormats[] = {Fp8Format::kE4M3FN, Fp8Format::kE5M2};

TEST(Fp8, PublishedValues) {
  // E4M3: max normal S.1111.110 = 448, min normal S.0001.000 = 2^-6,
  // min subnormal S.0000.001 = 2^-9, NaN S.1111.111, no infinity.
  EXPECT_EQ(fp8_to_f32(0x7e, Fp8Format::kE4M3FN), 448.0f);
  EXPECT_EQ(fp8_to_f32(0xfe, Fp8Format::kE4M3FN), -448.0f);
  EXPECT_EQ(fp8_to_f32(0x08, Fp8Format::kE4M3FN), std::ldexp(1.0f, -6));
  EXPECT_EQ(fp8_to_f32(0x07, Fp8Format::kE4M3FN), 0.875f * std::ldexp(1.0f, -6));
  EXPECT_EQ(fp8_to_f32(0x01, Fp8Format::kE4M3FN), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(fp8_to_f32(0x7f, Fp8Format::kE4M3FN)));
  EXPECT_TRUE(std::isnan(fp8_to_f32(0xff, Fp8Format::kE4M3FN)));
  EXPECT_EQ(fp8_to_f32(0x78, Fp8Format::kE4M3FN), 256.0f);  // S.1111.000 is a number in e4m3fn
  // E5M2: max normal S.11110.11 = 57344, min normal 2^-14, min subnormal
  // 2^-16, infinity S.11111.00, NaN S.11111.{01,10,11}.
  EXPECT_EQ(fp8_to_f32(0x7b, Fp8Format::kE5M2), 57344.0f);
  EXPECT_EQ(fp8_to_f32(0x04, Fp8Format::kE5M2), std::ldexp(1.0f, -14));
  EXPECT_EQ(fp8_to_f32(0x01, Fp8Format::kE5M2), std::ldexp(1.0f, -16));
  EXPECT_EQ(fp8_to_f32(0x7c, Fp8Format::kE5M2), std::numeric_limits<float>::infinity());
  EXPECT_EQ(fp8_to_f32(0xfc, Fp8Format::kE5M2), -std::numeric_limits<float>::infinity());
  for (std::uint8_t c : {0x7d, 0x7e, 0x7f}) EXPECT_TRUE(std::isnan(fp8_to_f32(c, Fp8Format::kE5M2)));
  EXPECT_EQ(fp8_to_f32(0x3c, Fp8Format::kE5M2), 1.0f);
  EXPECT_EQ(fp8_to_f32(0x38, Fp8Format::kE4M3FN), 1.0f);
}

TEST(Fp8, OverflowSaturatesOrNot) {
  // e4m3fn: 464 = 448 + half a quantum (32) ties to the even 448; above it
  // overflows; e5m2: 61440 = 57344 + 4096 ties away from the odd 0x7b.
  EXPECT_EQ(f32_to_fp8(464.0f, Fp8Format::kE4M3FN, false), 0x7e);
  EXPECT_EQ(f32_to_fp8(std::nextafter(464.0f, 1e9f), Fp8Format::kE4M3FN, false), 0x7f);
  EXPECT_EQ(f32_to_fp8(std::nextafter(464.0f, 1e9f), Fp8Format::kE4M3FN, true), 0x7e);
  EXPECT_EQ(f32_to_fp8(-1e9f, Fp8Format::kE4M3FN, true), 0xfe);
  EXPECT_EQ(f32_to_fp8(std::nextafter(61440.0f, 0.0f), Fp8Format::kE5M2, false), 0x7b);
  EXPECT_EQ(f32_to_fp8(61440.0f, Fp8Format::kE5M2, false), 0x7c);
  EXPECT_EQ(f32_to_fp8(61440.0f, Fp8Format::kE5M2, true), 0x7b);
  EXPECT_EQ(f32_to_fp8(-std::numeric_limits<float>::infinity(), Fp8Format::kE5M2, false), 0xfc);
  EXPECT_EQ(f32_to_fp8(-std::numeric_limits<float>::infinity(), Fp8Format::kE5M2, true), 0xfb);
  EXPECT_EQ(f32_to_fp8(std::numeric_limits<float>::infinity(), Fp8Format::kE4M3FN, false), 0x7f);
  for (Fp8Format f : kFormats)
    for (bool sat : {false, true}) EXPECT_TRUE(std::isnan(fp8_to_f32(f32_to_fp8(std::nanf(""), f, sat), f)));
}

TEST(Fp8, EveryValueRoundTrips) {
  for (Fp8Format f : kFormats) {
    for (int c = 0; c < 256; ++c) {
      const float v = fp8_to_f32(static_cast<std::uint8_t>(c), f);
      if (std::isnan(v)) continue;
      EXPECT_EQ(f32_to_fp8(v, f, false), c) << fp8_format_name(f) << " code " << c;
    }
  }
}

// Nearest finite code by exhaustive search; ties to the even code. Past the
// largest finite value the next value of the grid (the largest plus one
// quantum) stands for the overflow, with the parity of the next code.
std::uint8_t brute_force(float x, Fp8Format f, bool saturate) {
  const Fp8Spec s = fp8_spec(f);
  const double ax = std::fabs(static_cast<double>(x));
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  int best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (int c = 0; c <= s.max_code + 1; ++c) {
    double v;
    if (c <= s.max_code) {
      v = fp8_to_f32(static_cast<std::uint8_t>(c), f);
    } else {
      const double top = fp8_to_f32(s.max_code, f);
      v = top + (top - fp8_to_f32(static_cast<std::uint8_t>(s.max_code - 1), f));
    }
    const double d = std::fabs(v - ax);
    if (d < best_d || (exactly_equal(d, best_d) && (c & 1) == 0)) {
      best = c;
      best_d = d;
    }
  }
  if (best > s.max_code) return sign | (saturate ? s.max_code : s.overflow_code);
  return static_cast<std::uint8_t>(sign | best);
}

TEST(Fp8, RoundsToNearestEvenEverywhere) {
  const std::uint32_t lows[] = {0x0, 0x1, 0x1fff, 0x1000, 0x0fff, 0x1001};
  std::int64_t checked = 0;
  for (Fp8Format f : kFormats) {
    for (std::uint32_t hi = 0; hi < (1u << 19); ++hi) {
      const std::uint32_t top = hi << 13;
      if ((top & 0x7f800000u) == 0x7f800000u) continue;  // Inf and NaN: OverflowSaturatesOrNot
      const int e = static_cast<int>((top >> 23) & 0xff) - 127;
      if (e < -30 || e > 20) continue;  // far outside both formats: the zero and overflow ends are below
      for (std::uint32_t lo : lows) {
        const float x = f32_from_bits(top | lo);
        for (bool sat : {false, true}) {
          ASSERT_EQ(f32_to_fp8(x, f, sat), brute_force(x, f, sat))
              << fp8_format_name(f) << " x=" << x << " bits=0x" << std::hex << (top | lo) << " sat=" << sat;
          ++checked;
        }
      }
    }
    EXPECT_EQ(f32_to_fp8(1e-30f, f, false), 0x00);
    EXPECT_EQ(f32_to_fp8(-1e-30f, f, false), 0x80);
    EXPECT_EQ(f32_to_fp8(1e30f, f, true), fp8_spec(f).max_code);
  }
  EXPECT_GT(checked, 1000000);
}

TEST(Fp8, CodeDistanceCountsRepresentableSteps) {
  EXPECT_EQ(fp8_code_distance(0x00, 0x80), 0);  // +0 and -0
  EXPECT_EQ(fp8_code_distance(0x01, 0x81), 2);  // +min subnormal to -min subnormal
  EXPECT_EQ(fp8_code_distance(0x38, 0x39), 1);
  EXPECT_EQ(fp8_code_distance(0x7e, 0xfe), 2 * 0x7e);
}

}  // namespace
}  // namespace ropecheck
