// SPDX-License-Identifier: MIT
// The __sincosf model (impls/kernel_support/fast_sincos_model.h) against
// what it rests on: within CUDA's documented absolute errors on [-pi, pi]
// (every 61st fp32 of [2^-12, pi] and its negative; every one with
// ROPECHECK_EXHAUSTIVE=1), and beyond, within the documented error plus the
// reduction's phase error, slope |x|, which is how policy_fast_sincos
// declares it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "impls/kernel_support/fast_sincos_model.h"

namespace ropecheck::impl {
namespace {

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

TEST(FastSinCosModel, MeetsTheDocumentedBoundsOnMinusPiToPi) {
  const std::uint32_t stride = std::getenv("ROPECHECK_EXHAUSTIVE") ? 1 : 61;
  double worst_sin = 0, worst_cos = 0;
  for (std::uint32_t b = bits(0x1p-12f); b <= bits(3.14159274f); b += stride) {
    for (float x : {from_bits(b), -from_bits(b)}) {
      worst_sin = std::max(worst_sin, std::fabs(fast_sincos::sin(x) - std::sin(static_cast<double>(x))));
      worst_cos = std::max(worst_cos, std::fabs(fast_sincos::cos(x) - std::cos(static_cast<double>(x))));
    }
  }
  EXPECT_LE(worst_sin, fast_sincos::documented_sin_error());
  EXPECT_LE(worst_cos, fast_sincos::documented_cos_error());
  std::printf("max |model - exact| on [2^-12, pi] (stride %u): sin %.4g = 2^%.2f, cos %.4g = 2^%.2f\n", stride,
              worst_sin, std::log2(worst_sin), worst_cos, std::log2(worst_cos));
  EXPECT_EQ(fast_sincos::sin(0.0f), 0.0f);
  EXPECT_EQ(fast_sincos::cos(0.0f), 1.0f);
}

TEST(FastSinCosModel, GrowsAsAPhaseErrorBeyondPi) {
  // |model(x) - f(x)| <= c0 + slope |x| for |x| up to 2^22, and the slope is
  // reached (within 2%) somewhere: the declared growth is the model's.
  const double c0 = fast_sincos::documented_cos_error(), slope = fast_sincos::phase_slope();
  double worst_ratio = 0;
  for (int e = 2; e < 22; ++e)
    for (std::uint32_t k = 0; k < 4096; ++k) {
      const float x = std::ldexp(1.0f + static_cast<float>(k) / 4096, e) * (k % 2 ? -1.0f : 1.0f);
      const double bound = c0 + slope * std::fabs(x);
      const double es = std::fabs(fast_sincos::sin(x) - std::sin(static_cast<double>(x)));
      const double ec = std::fabs(fast_sincos::cos(x) - std::cos(static_cast<double>(x)));
      ASSERT_LE(std::max(es, ec), bound) << "x = " << x;
      worst_ratio = std::max(worst_ratio, std::max(es, ec) / bound);
    }
  EXPECT_GT(worst_ratio, 0.98);
  EXPECT_NEAR(slope, 1.5955e-7, 1e-10);  // |1 - 2 pi K| + 2 pi K 2^-23
}

}  // namespace
}  // namespace ropecheck::impl
