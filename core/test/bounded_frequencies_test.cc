// SPDX-License-Identifier: MIT
// compute_frequencies<BoundedReal> against compute_frequencies<Real> (the
// MPFR path) for schemes drawn as the suites draw them: every w_i and m of
// the MPFR path lies within the BoundedReal's radius of its centre, and
// the fast path decides RN(w_i) for nearly every config (the rest throw
// Undecided and take MPFR, which is correct, only slower). Prints the worst
// distance as a fraction of the radius and the share undecided.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdio>

#include "core/cases/cases.h"
#include "core/cases/rng.h"
#include "reference/bounded_real.h"

namespace ropecheck {
namespace {

// |v - (hi + lo)| for an MPFR value, rounded up.
double distance(const ref::Real& v, const ref::BoundedReal& b) {
  mpfr_t d;
  mpfr_init2(d, 512);
  mpfr_sub_d(d, v.backend().data(), b.hi(), MPFR_RNDN);  // exact at 512 bits
  mpfr_sub_d(d, d, b.lo(), MPFR_RNDN);
  const double r = std::fabs(mpfr_get_d(d, MPFR_RNDU));
  mpfr_clear(d);
  return r;
}

TEST(BoundedFrequencies, EncloseTheMpfrPathsFrequencies) {
  Rng rng(0xb0b);
  int undecided = 0, configs = 0;
  double worst = 0;
  for (int k = 0; k < 3000; ++k) {
    const int d = 2 * static_cast<int>(rng.range(1, 128));
    const auto scheme = static_cast<ropecheck_scheme_t>(k % ROPECHECK_SCHEME_COUNT);
    const ref::FreqSpec f = draw_scheme(rng, d, scheme);
    const ref::Frequencies<ref::Real> exact = ref::compute_frequencies<ref::Real>(f, d);
    ++configs;
    try {
      const ref::Frequencies<ref::BoundedReal> b = ref::compute_frequencies<ref::BoundedReal>(f, d);
      for (std::size_t i = 0; i < b.inv_freq.size(); ++i) {
        const double dist = distance(exact.inv_freq[i], b.inv_freq[i]);
        ASSERT_LE(dist, b.inv_freq[i].rad()) << f.describe() << " pair " << i;
        if (b.inv_freq[i].rad() > 0) worst = std::max(worst, dist / b.inv_freq[i].rad());
        // The radius stays tiny against the value, far below a double's
        // 2^-53: 2^-80 relative. (Most are below 2^-90; a Llama 3.1 pair
        // just inside a narrow blend band, where the generator aims since
        // 2026-11-24, divides by hf - lf and reached 2^-88.7, an untruncated
        // YaRN ramp 2^-89.97.) The fast path's reach is the undecided count
        // below.
        EXPECT_LE(b.inv_freq[i].rad(), 0x1p-80 * std::fabs(b.inv_freq[i].hi())) << f.describe() << " pair " << i;
      }
      ASSERT_LE(distance(exact.attention_factor, b.attention_factor), b.attention_factor.rad()) << f.describe();
    } catch (const ref::Undecided& u) {
      ++undecided;
    }
  }
  std::printf("BoundedReal frequencies: %d configs, %d undecided (MPFR), worst distance %.3g of the radius\n", configs,
              undecided, worst);
  EXPECT_LE(undecided, configs / 100);
}

// A YaRN ramp whose truncated range collapses (low clamped to +0, high the
// ceil of a small negative number: -0, equal to +0), so HF's +0.001 branch
// is taken; floor and ceil of exact values; an undecidable comparison.
TEST(BoundedFrequencies, ExactBranchesAreDecidedExactly) {
  ref::FreqSpec yarn;
  yarn.scheme = ROPECHECK_SCHEME_YARN;
  yarn.original_max_position = 4096;
  yarn.factor = 8;
  yarn.truncate = true;
  yarn.beta_fast = 1000;  // correction dim -1.49: floor -2, clamped to 0
  yarn.beta_slow = 700;   // correction dim -0.25: ceil -0
  for (const ref::FreqSpec& f : {yarn}) {
    const auto exact = ref::compute_frequencies<ref::Real>(f, 64);
    const auto b = ref::compute_frequencies<ref::BoundedReal>(f, 64);
    for (std::size_t i = 0; i < b.inv_freq.size(); ++i)
      ASSERT_LE(distance(exact.inv_freq[i], b.inv_freq[i]), b.inv_freq[i].rad()) << i;
  }
  EXPECT_TRUE(ref::floor(ref::BoundedReal(3.0)) == ref::BoundedReal(3.0));
  EXPECT_TRUE(ref::ceil(ref::BoundedReal(-2.5)) == ref::BoundedReal(-2.0));
  EXPECT_THROW((void)(ref::BoundedReal::make(1.0, 0, 0x1p-60) < ref::BoundedReal(1.0)), ref::Undecided);
}

}  // namespace
}  // namespace ropecheck
