// SPDX-License-Identifier: MIT
// simd_otf's vector sin/cos meets the bound its policy declares
// (sincos_max_abs_error, derived in docs/SIMD.md) on every Highway target
// this CPU supports, the target as the gtest parameter: a dense sweep of
// angles p * w against long double sin/cos of the same double angle (the
// kernel's declared angle is fl64(p w); E3 is the error of sin/cos of it).
// The largest error seen is printed, as Highway's own math tests do.
//
// ROPECHECK_SINCOS_EXHAUSTIVE=1 adds every fp32 reduced angle |t| < pi/4
// (about 2^31 values, minutes per target): the polynomials alone, on every
// input they can get in any quadrant. Their maximum plus the analytic
// rounding of t (2^-25) is the declared bound's derivation; the recorded
// result is in docs/SIMD.md.
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "impls/simd/simd_impls.h"
#include "impls/test/simd_target_param.h"

namespace ropecheck {
namespace {

struct Worst {
  long double sin = 0, cos = 0;
  double at_sin = 0, at_cos = 0;
};

// Runs the kernel's sin/cos on the angles position * w[i] and folds the
// errors against long double sin/cos of the double angle into `worst`.
void sweep(double position, const std::vector<double>& w, Worst& worst) {
  std::vector<float> c(w.size()), s(w.size());
  impl::simd_sincos_row(position, w.data(), static_cast<int>(w.size()), c.data(), s.data());
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double a = position * w[i];  // the kernel's angle: one double product
    const long double es = std::fabs(static_cast<long double>(s[i]) - std::sin(static_cast<long double>(a)));
    const long double ec = std::fabs(static_cast<long double>(c[i]) - std::cos(static_cast<long double>(a)));
    if (es > worst.sin) worst = {es, worst.cos, a, worst.at_cos};
    if (ec > worst.cos) worst = {worst.sin, ec, worst.at_sin, a};
  }
}

class SimdSinCos : public SimdTargetTest {};
ROPECHECK_SIMD_TARGETS_INSTANTIATE(SimdSinCos);

TEST_P(SimdSinCos, WithinTheDeclaredBoundOnThisTarget) {
  ASSERT_STREQ(impl::simd_target_name(), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  const double declared = impl::simd_otf_impl()->policy.sincos_max_abs_error;
  Worst worst;
  constexpr int kRow = 1 << 16;
  std::vector<double> w(kRow);
  std::mt19937_64 rng(20261123);
  std::uniform_real_distribution<double> jitter(0.0, 1.0), freq(0x1p-40, 1.0);
  // Angles in [-8, 8], one in each step of 2^-16 (every quadrant of both
  // signs, the quadrant edges at odd multiples of pi/4 among them).
  for (int block = 0; block < 16; ++block) {
    for (int i = 0; i < kRow; ++i) w[i] = -8.0 + (block * kRow + i + jitter(rng)) * 0x1p-16;
    sweep(1.0, w, worst);
  }
  // Angles of long contexts: positions up to 2^31 - 1 times frequencies in
  // (0, 1], each a double product as the kernel forms it.
  for (int block = 0; block < 8; ++block) {
    const double position = static_cast<double>(rng() % 2147483647u);
    for (double& x : w) x = freq(rng);
    sweep(position, w, worst);
  }
  // Negative positions (the kernel declares them).
  for (double& x : w) x = freq(rng);
  sweep(-123456789.0, w, worst);

  std::printf("%s: max |sin err| %.3Le at %.17g, max |cos err| %.3Le at %.17g (declared %.3g)\n",
              hwy::TargetName(GetParam()), worst.sin, worst.at_sin, worst.cos, worst.at_cos, declared);
  EXPECT_LE(worst.sin, declared);
  EXPECT_LE(worst.cos, declared);
}

TEST_P(SimdSinCos, PolynomialOnEveryReducedAngleWhenAsked) {
  ASSERT_STREQ(impl::simd_target_name(), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  const char* env = std::getenv("ROPECHECK_SINCOS_EXHAUSTIVE");
  if (env == nullptr || std::string(env) != "1") GTEST_SKIP() << "set ROPECHECK_SINCOS_EXHAUSTIVE=1 (minutes)";
  // Every float t with |t| < pi/4: the angle t itself is reduced exactly
  // (quadrant 0), so this is the polynomials alone, and every quadrant
  // evaluates them on such a t (the reduced angle rounded to fp32).
  Worst worst;
  constexpr int kRow = 1 << 16;
  std::vector<double> w;
  w.reserve(kRow);
  constexpr double kQuarterPi = 0.78539816339744830962;
  float top = static_cast<float>(kQuarterPi);
  if (static_cast<double>(top) >= kQuarterPi) top = std::nextafter(top, 0.0f);
  std::uint32_t end;
  std::memcpy(&end, &top, sizeof end);
  for (float sign : {1.0f, -1.0f}) {
    for (std::uint64_t b = 0; b <= end; ++b) {
      float t;
      const std::uint32_t bits = static_cast<std::uint32_t>(b);
      std::memcpy(&t, &bits, sizeof t);
      w.push_back(static_cast<double>(sign * t));
      if (w.size() == static_cast<std::size_t>(kRow) || b == end) {
        sweep(1.0, w, worst);
        w.clear();
      }
    }
  }
  std::printf("%s, every fp32 |t| < pi/4: max |sin err| %.3Le at %.9g, max |cos err| %.3Le at %.9g\n",
              hwy::TargetName(GetParam()), worst.sin, worst.at_sin, worst.cos, worst.at_cos);
  // The derivation: this part plus 2^-25 (rounding t) must stay within the
  // declaration.
  EXPECT_LE(worst.sin + 0x1p-25, impl::simd_otf_impl()->policy.sincos_max_abs_error);
  EXPECT_LE(worst.cos + 0x1p-25, impl::simd_otf_impl()->policy.sincos_max_abs_error);
}

}  // namespace
}  // namespace ropecheck
