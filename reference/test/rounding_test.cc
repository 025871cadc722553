// SPDX-License-Identifier: MIT
// Correct rounding (nearest, ties to even) to every output dtype: halfway
// cases, subnormals, overflow, and agreement with the hardware's own
// correctly rounded conversions (double -> float, double -> _Float16) and
// with the kernels' storage conversions in ropecheck/dtype.h.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"
#include "reference/power_of_two_division.h"
#include "reference/rounding.h"
#include "core/cases/rng.h"

namespace ropecheck::ref {
namespace {

double r(const Real& v, ropecheck_dtype_t t) { return round_to_dtype(v, t); }
Real two(int e) { return ldexp(Real(1), e); }

// Bitwise equality, so -0.0 vs 0.0 and NaN are compared exactly.
::testing::AssertionResult same_bits(double a, double b) {
  std::uint64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  if (x == y) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::hexfloat << a << " vs " << b;
}

TEST(ReferenceRounding, HalfwayCasesGoToEven) {
  // fp32: 1 + 2^-24 is halfway between 1 and 1 + 2^-23.
  EXPECT_TRUE(same_bits(r(1 + two(-24), ROPECHECK_DTYPE_F32), 1.0));
  EXPECT_TRUE(same_bits(r(1 + 3 * two(-24), ROPECHECK_DTYPE_F32), 1.0 + 0x1p-22));
  EXPECT_TRUE(same_bits(r(1 + two(-24) + two(-100), ROPECHECK_DTYPE_F32), 1.0 + 0x1p-23));
  EXPECT_TRUE(same_bits(r(-(1 + two(-24)), ROPECHECK_DTYPE_F32), -1.0));
  // bf16: 8 significant bits.
  EXPECT_TRUE(same_bits(r(1 + two(-8), ROPECHECK_DTYPE_BF16), 1.0));
  EXPECT_TRUE(same_bits(r(1 + 3 * two(-8), ROPECHECK_DTYPE_BF16), 1.0 + 0x1p-6));
  // fp16: 11 significant bits.
  EXPECT_TRUE(same_bits(r(1 + two(-11), ROPECHECK_DTYPE_F16), 1.0));
  EXPECT_TRUE(same_bits(r(1 + 3 * two(-11), ROPECHECK_DTYPE_F16), 1.0 + 0x1p-9));
  // fp64.
  EXPECT_TRUE(same_bits(r(1 + two(-53), ROPECHECK_DTYPE_F64), 1.0));
  EXPECT_TRUE(same_bits(r(1 + 3 * two(-53), ROPECHECK_DTYPE_F64), 1.0 + 0x1p-51));
}

TEST(ReferenceRounding, SubnormalsAndZero) {
  // fp32 smallest subnormal 2^-149: half of it ties to 0 (even), 1.5 of it
  // ties to 2^-148 (even).
  EXPECT_TRUE(same_bits(r(two(-150), ROPECHECK_DTYPE_F32), 0.0));
  EXPECT_TRUE(same_bits(r(-two(-150), ROPECHECK_DTYPE_F32), -0.0));
  EXPECT_TRUE(same_bits(r(two(-150) + two(-200), ROPECHECK_DTYPE_F32), 0x1p-149));
  EXPECT_TRUE(same_bits(r(3 * two(-150), ROPECHECK_DTYPE_F32), 0x1p-148));
  EXPECT_TRUE(same_bits(r(5 * two(-150), ROPECHECK_DTYPE_F32), 0x1p-148));
  // fp16 subnormal quantum 2^-24.
  EXPECT_TRUE(same_bits(r(3 * two(-25), ROPECHECK_DTYPE_F16), 0x1p-23));
  EXPECT_TRUE(same_bits(r(two(-25), ROPECHECK_DTYPE_F16), 0.0));
  // bf16 shares fp32's exponent range: quantum 2^-133.
  EXPECT_TRUE(same_bits(r(3 * two(-134), ROPECHECK_DTYPE_BF16), 0x1p-132));
  // Largest subnormal rounding up into the smallest normal.
  EXPECT_TRUE(same_bits(r(two(-126) - two(-151), ROPECHECK_DTYPE_F32), 0x1p-126));
  EXPECT_TRUE(same_bits(r(Real(0), ROPECHECK_DTYPE_F32), 0.0));
  EXPECT_TRUE(same_bits(r(-Real(0), ROPECHECK_DTYPE_BF16), -0.0));
}

TEST(ReferenceRounding, OverflowAndSpecials) {
  const Real fmax(static_cast<double>(FLT_MAX));
  EXPECT_TRUE(same_bits(r(fmax, ROPECHECK_DTYPE_F32), FLT_MAX));
  EXPECT_TRUE(same_bits(r(fmax + two(103) - two(60), ROPECHECK_DTYPE_F32), FLT_MAX));
  EXPECT_TRUE(same_bits(r(fmax + two(103), ROPECHECK_DTYPE_F32), HUGE_VAL));  // tie, odd -> up
  EXPECT_TRUE(same_bits(r(Real(65519), ROPECHECK_DTYPE_F16), 65504.0));
  EXPECT_TRUE(same_bits(r(Real(65520), ROPECHECK_DTYPE_F16), HUGE_VAL));
  EXPECT_TRUE(same_bits(r(Real(-65520), ROPECHECK_DTYPE_F16), -HUGE_VAL));
  EXPECT_TRUE(std::isnan(r(Real(std::numeric_limits<double>::quiet_NaN()), ROPECHECK_DTYPE_F32)));
  EXPECT_TRUE(same_bits(r(Real(-HUGE_VAL), ROPECHECK_DTYPE_BF16), -HUGE_VAL));
}

// Random doubles across the fp32 range, subnormals included, against the
// hardware conversion (IEEE 754 requires it to be correctly rounded).
TEST(ReferenceRounding, AgreesWithHardwareFloatConversion) {
  Rng rng(42);
  for (int n = 0; n < 20000; ++n) {
    const int e = static_cast<int>(rng.range(-160, 130));
    const double v = std::ldexp(1.0 + rng.uniform(), e) * (rng.chance(0.5) ? -1 : 1);
    const float hw = static_cast<float>(v);
    EXPECT_TRUE(same_bits(r(Real(v), ROPECHECK_DTYPE_F32), static_cast<double>(hw))) << std::hexfloat << v;
  }
}

#if defined(__FLT16_MAX__)
TEST(ReferenceRounding, AgreesWithHardwareFloat16Conversion) {
  Rng rng(43);
  for (int n = 0; n < 20000; ++n) {
    const int e = static_cast<int>(rng.range(-27, 16));
    const double v = std::ldexp(1.0 + rng.uniform(), e) * (rng.chance(0.5) ? -1 : 1);
    const _Float16 hw = static_cast<_Float16>(v);
    EXPECT_TRUE(same_bits(r(Real(v), ROPECHECK_DTYPE_F16), static_cast<double>(hw))) << std::hexfloat << v;
  }
}
#endif

// The kernels' fp32 -> fp16/bf16 storage conversions are correct rounding
// too, for every class of float (checked against the reference).
TEST(ReferenceRounding, StorageConversionsAreCorrectlyRounded) {
  Rng rng(44);
  for (int n = 0; n < 50000; ++n) {
    const float f = f32_from_bits(static_cast<std::uint32_t>(rng.next()));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(f))));
      EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(f))));
      continue;
    }
    const Real v(static_cast<double>(f));
    EXPECT_TRUE(same_bits(f16_to_f32(f32_to_f16(f)), r(v, ROPECHECK_DTYPE_F16))) << std::hexfloat << f;
    EXPECT_TRUE(same_bits(bf16_to_f32(f32_to_bf16(f)), r(v, ROPECHECK_DTYPE_BF16))) << std::hexfloat << f;
  }
  // Every fp16 and bf16 bit pattern survives the round trip through fp32.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto b = static_cast<std::uint16_t>(h);
    const float f = f16_to_f32(b);
    if (!std::isnan(f)) {
      EXPECT_EQ(f32_to_f16(f), b) << h;
    }
    const float g = bf16_to_f32(b);
    if (!std::isnan(g)) {
      EXPECT_EQ(f32_to_bf16(g), b) << h;
    }
  }
}

TEST(ReferenceRounding, UlpOf) {
  EXPECT_TRUE(exactly_equal(ulp_of(1.0, ROPECHECK_DTYPE_F32), 0x1p-23));
  EXPECT_TRUE(exactly_equal(ulp_of(1.5, ROPECHECK_DTYPE_BF16), 0x1p-7));
  EXPECT_TRUE(exactly_equal(ulp_of(0.0, ROPECHECK_DTYPE_F16), 0x1p-24));
  EXPECT_TRUE(exactly_equal(ulp_of(1e-30, ROPECHECK_DTYPE_F32), 0x1p-123));  // normal: 2^-100 binade
  EXPECT_TRUE(exactly_equal(ulp_of(1e-40, ROPECHECK_DTYPE_F32), 0x1p-149));  // subnormal
}

// ulp_of reads the binade from x's bits; its definition is frexp and ldexp.
double ulp_of_by_libm(double x, ropecheck_dtype_t t) {
  const DtypeFormat f = dtype_format(t);
  const double a = std::fabs(x);
  int e = 0;
  if (!(a > 0.0) || !std::isfinite(a)) {
    e = f.emin + 1;
  } else {
    std::frexp(a, &e);
  }
  return std::ldexp(1.0, std::max(e - 1, f.emin) - (f.precision - 1));
}

TEST(ReferenceRounding, UlpOfMatchesItsDefinition) {
  const ropecheck_dtype_t dtypes[] = {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16,
                                      ROPECHECK_DTYPE_F64};
  std::vector<double> xs = {0.0, -0.0, HUGE_VAL, -HUGE_VAL, std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min(),
                            DBL_MIN, std::nextafter(DBL_MIN, 0.0), DBL_MAX, -DBL_MAX, 1.0, -1.0};
  // Every binade's ends, across the whole double range (subnormals included).
  for (int e = -1074; e <= 1023; ++e) {
    const double p = std::ldexp(1.0, e);
    xs.insert(xs.end(), {p, -p, std::nextafter(p, 0.0), std::nextafter(p, HUGE_VAL)});
  }
  Rng rng(20261126);
  for (int i = 0; i < 200000; ++i) {  // random bit patterns: every exponent, sign and mantissa
    const std::uint64_t b = rng.bits();
    double x;
    std::memcpy(&x, &b, sizeof x);
    xs.push_back(x);
  }
  for (const ropecheck_dtype_t t : dtypes)
    for (const double x : xs) EXPECT_TRUE(same_bits(ulp_of(x, t), ulp_of_by_libm(x, t))) << std::hexfloat << x << " " << t;
}

// Dividing by an ulp through its reciprocal gives the division's bits for
// every power of two, subnormal ones (divided) and the largest (whose
// reciprocal is subnormal: divided) included, and for every kind of
// numerator: zeros, subnormals, huge values, infinities and NaN.
TEST(ReferenceRounding, DivideByPowerOfTwoIsTheDivision) {
  Rng rng(53);
  std::vector<double> nums = {0.0, -0.0, 1.0, 0x1p-1074, 0x1.8p-1070, DBL_MIN, DBL_MAX, 0x1.fffffffffffffp-1,
                              std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
  for (int i = 0; i < 200; ++i) nums.push_back(std::ldexp(rng.uniform(1, 2), static_cast<int>(rng.range(-1074, 1023))));
  for (int e = -1074; e <= 1023; ++e) {
    const double p = std::ldexp(1.0, e);
    for (const double n : nums) {
      const double want = n / p, got = divide_by_power_of_two(n, p);
      ASSERT_TRUE(same_bits(got, want) || (std::isnan(got) && std::isnan(want))) << std::hexfloat << n << " / " << p;
    }
  }
  // Not a power of two: the division itself.
  EXPECT_TRUE(same_bits(divide_by_power_of_two(1.0, 3.0), 1.0 / 3.0));
}

}  // namespace
}  // namespace ropecheck::ref
