// SPDX-License-Identifier: MIT
// The cache kernels' table builder (impls/kernel_support/cache_builder.cc):
// sin/cos by one angle addition per entry from libm at a few angles, held to
// what kCacheBuilderPolicy declares against long double sin/cos of the exact
// product p w: every entry within
//   h32(|m cos|) + m (kCacheSincosAbsError + 2^-53 p w) + 2^-53 m
// (the fp32 rounding, the declared sin/cos error, the angle product's
// rounding, m cos rounded in double). The first S rows are libm's bit for
// bit. A builder in fp32 (the mutant the declaration must not let through)
// exceeds that bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/cases/rng.h"
#include "impls/kernel_support/cache_builder.h"
#include "impls/kernel_support/engine_freqs.h"

namespace ropecheck::impl {
namespace {

constexpr int kRotaryDim = 128, kPairs = kRotaryDim / 2;

double half_ulp_f32(double v) {
  const float f = static_cast<float>(std::fabs(v));
  return (static_cast<double>(std::nextafter(f, INFINITY)) - f) / 2;
}

// The largest |entry - m f(p w)| over the bound of the header, over rows of
// `table` (a [rows, 128] cos|sin table): > 1 means the declaration is broken.
double worst_over_bound(const std::vector<float>& table, const EngineFreqs<double>& f,
                        const std::vector<std::int64_t>& rows) {
  double worst = 0;
  const long double m = f.attention_factor;
  for (const std::int64_t p : rows)
    for (int i = 0; i < kPairs; ++i) {
      const long double a = static_cast<long double>(p) * static_cast<long double>(f.inv_freq[i]);
      const long double exact[2] = {m * cosl(a), m * sinl(a)};
      for (int j = 0; j < 2; ++j) {
        const double got = table[static_cast<std::size_t>(p * kRotaryDim + j * kPairs + i)];
        const double bound = half_ulp_f32(static_cast<double>(exact[j])) +
                             static_cast<double>(m) * (kCacheSincosAbsError + 0x1p-53 * static_cast<double>(a)) +
                             0x1p-53 * static_cast<double>(m);
        worst = std::max(worst, static_cast<double>(fabsl(got - exact[j])) / bound);
      }
    }
  return worst;
}

std::vector<std::int64_t> sampled_rows(std::int64_t rows) {
  std::vector<std::int64_t> v = {0, 1, rows - 1};
  Rng rng(7, 0x63616368ULL);
  for (int k = 0; k < 4096; ++k) v.push_back(rng.range(0, rows - 1));
  return v;
}

class CacheBuilder : public ::testing::TestWithParam<ropecheck_scheme_t> {};

ropecheck_freq_spec_t spec_of(ropecheck_scheme_t scheme) {
  ropecheck_freq_spec_t s{};
  s.scheme = scheme;
  s.base = 500000;
  if (scheme == ROPECHECK_SCHEME_YARN) {  // attention factor 0.1 ln 8 + 1
    s.factor = 8;
    s.original_max_position = 4096;
    s.beta_fast = 32;
    s.beta_slow = 1;
    s.truncate = 1;
  }
  return s;
}

TEST_P(CacheBuilder, EveryEntryIsWithinTheDeclaredError) {
  const ropecheck_freq_spec_t s = spec_of(GetParam());
  constexpr std::int64_t kRows = std::int64_t{1} << 17;
  std::vector<float> table(static_cast<std::size_t>(kRows * kRotaryDim));
  char err[256];
  ASSERT_EQ(build_cos_sin_cache_f64(&s, kRotaryDim, kRows, ROPECHECK_DTYPE_F32, table.data(), err, sizeof err),
            ROPECHECK_OK)
      << err;
  const EngineFreqs<double> f = engine_frequencies<double>(s, kRotaryDim);
  const double worst = worst_over_bound(table, f, sampled_rows(kRows));
  EXPECT_LE(worst, 1.0);
  EXPECT_GT(worst, 0.25);  // the bound is not loose by orders of magnitude: the fp32 rounding reaches it
  // The first S = 2^9 rows (S^2 >= 2^17): cos A = 1, sin A = 0 exactly.
  for (std::int64_t p = 0; p < 512; ++p)
    for (int i = 0; i < kPairs; ++i) {
      const double a = static_cast<double>(p) * f.inv_freq[i];
      ASSERT_EQ(table[static_cast<std::size_t>(p * kRotaryDim + i)], static_cast<float>(f.attention_factor * std::cos(a)))
          << "row " << p << " pair " << i;
      ASSERT_EQ(table[static_cast<std::size_t>(p * kRotaryDim + kPairs + i)],
                static_cast<float>(f.attention_factor * std::sin(a)))
          << "row " << p << " pair " << i;
    }
  // A builder in fp32 (the angle and sin/cos in float) breaks the bound.
  std::vector<float> f32(table.size());
  for (std::int64_t p = 0; p < kRows; ++p)
    for (int i = 0; i < kPairs; ++i) {
      const float a = static_cast<float>(p) * static_cast<float>(f.inv_freq[i]);
      const auto m = static_cast<float>(f.attention_factor);
      f32[static_cast<std::size_t>(p * kRotaryDim + i)] = m * std::cos(a);
      f32[static_cast<std::size_t>(p * kRotaryDim + kPairs + i)] = m * std::sin(a);
    }
  EXPECT_GT(worst_over_bound(f32, f, sampled_rows(kRows)), 100.0);
}

INSTANTIATE_TEST_SUITE_P(Schemes, CacheBuilder, ::testing::Values(ROPECHECK_SCHEME_DEFAULT, ROPECHECK_SCHEME_YARN),
                         [](const auto& info) { return info.param == ROPECHECK_SCHEME_YARN ? "yarn" : "default"; });

}  // namespace
}  // namespace ropecheck::impl
