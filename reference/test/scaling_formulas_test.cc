// SPDX-License-Identifier: MIT
// Rope/Scheme*: the scaling formulas behave as their definitions say, over
// random valid parameters (RapidCheck), on the reference's frequencies.
// Kernels do not expose their frequencies through the ABI; their formulas
// are checked through conformance (an error in w shows up as an angle error
// growing with position).
#include <gtest/gtest.h>

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "core/cases/cases.h"
#include "reference/frequencies.h"
#include "core/cases/rng.h"

namespace ropecheck::ref {
namespace {

// Relative closeness at the reference's working precision.
bool close(const Real& a, const Real& b) { return abs(a - b) <= abs(b) * ldexp(Real(1), -110); }

FreqSpec draw(ropecheck_scheme_t s, int d) {
  Rng rng(*rc::gen::inRange<std::uint64_t>(0, 1u << 30));
  FreqSpec f = draw_scheme(rng, d, s);
  RC_PRE(f.scheme == s);
  return f;
}
int draw_d() { return 2 * *rc::gen::inRange(2, 129); }

RC_GTEST_PROP(RopeSchemeLinear, DividesEveryFrequencyByTheFactor, ()) {
  const int d = draw_d();
  const FreqSpec f = draw(ROPECHECK_SCHEME_LINEAR, d);
  const auto w = compute_frequencies<Real>(f, d);
  for (int i = 0; i < d / 2; ++i) RC_ASSERT(close(w.inv_freq[i], default_inv_freq(Real(f.base), i, d) / Real(f.factor)));
}

RC_GTEST_PROP(RopeSchemeNtk, KeepsTheFirstAndDividesTheLastByTheFactor, ()) {
  const int d = draw_d();
  const FreqSpec f = draw(ROPECHECK_SCHEME_NTK_AWARE, d);
  const auto w = compute_frequencies<Real>(f, d);
  RC_ASSERT(w.inv_freq[0] == Real(1));
  const int last = d / 2 - 1;
  RC_ASSERT(close(w.inv_freq[last], default_inv_freq(Real(f.base), last, d) / Real(f.factor)));
}

RC_GTEST_PROP(RopeSchemeDynamicNtk, IsDefaultUpToLAndDecreasesWithSeqLen, ()) {
  const int d = draw_d();
  FreqSpec f = draw(ROPECHECK_SCHEME_DYNAMIC_NTK, d);
  f.factor = std::max(f.factor, 1.01);
  f.seq_len = *rc::gen::inRange<std::int64_t>(0, f.original_max_position + 1);
  const auto at_l = compute_frequencies<Real>(f, d);
  for (int i = 0; i < d / 2; ++i) RC_ASSERT(at_l.inv_freq[i] == default_inv_freq(Real(f.base), i, d));
  f.seq_len = f.original_max_position + *rc::gen::inRange<std::int64_t>(1, 100000);
  const auto longer = compute_frequencies<Real>(f, d);
  f.seq_len += *rc::gen::inRange<std::int64_t>(1, 100000);
  const auto longest = compute_frequencies<Real>(f, d);
  RC_ASSERT(longer.inv_freq[0] == Real(1));
  for (int i = 1; i < d / 2; ++i) {
    RC_ASSERT(longer.inv_freq[i] < at_l.inv_freq[i]);
    RC_ASSERT(longest.inv_freq[i] < longer.inv_freq[i]);
  }
}

RC_GTEST_PROP(RopeSchemeYarn, InterpolatesBetweenWOverSAndWAlongAMonotoneRamp, ()) {
  const int d = draw_d();
  const FreqSpec f = draw(ROPECHECK_SCHEME_YARN, d);
  const auto w = compute_frequencies<Real>(f, d);
  const auto range = yarn_correction_range<Real>(f, d);
  // HF clamps low to >= 0 and high to <= d-1 independently, so for a small
  // rotary_dim low can exceed high and the ramp runs backwards
  // (docs/FREQUENCY_SCHEMES.md); the monotone-ramp claim is about low < high.
  RC_PRE(range.low < range.high);
  const Real s(f.factor);
  Real prev_ratio = 2;
  for (int i = 0; i < d / 2; ++i) {
    const Real base = default_inv_freq(Real(f.base), i, d);
    const Real lo = s >= 1 ? base / s : base, hi = s >= 1 ? base : base / s;
    RC_ASSERT(w.inv_freq[i] >= lo * (1 - ldexp(Real(1), -110)));
    RC_ASSERT(w.inv_freq[i] <= hi * (1 + ldexp(Real(1), -110)));
    if (Real(i) <= range.low) RC_ASSERT(close(w.inv_freq[i], base));
    if (Real(i) >= range.high) RC_ASSERT(close(w.inv_freq[i], base / s));
    // w_i / base_i = 1 - ramp (1 - 1/s): monotone in i.
    const Real ratio = w.inv_freq[i] / base;
    if (s > 1) RC_ASSERT(ratio <= prev_ratio * (1 + ldexp(Real(1), -110)));
    prev_ratio = ratio;
  }
  if (f.truncate) {
    RC_ASSERT(range.low == floor(range.low));
    RC_ASSERT(range.high == floor(range.high) || range.high == Real(d - 1));
  }
}

RC_GTEST_PROP(RopeSchemeYarn, AttentionFactorFollowsItsThreeRules, ()) {
  const int d = draw_d();
  FreqSpec f = draw(ROPECHECK_SCHEME_YARN, d);
  const Real s(f.factor);
  auto g = [&](const Real& k) { return s <= 1 ? Real(1) : Real(1) / 10 * k * log(s) + 1; };
  f.attention_factor.reset();
  f.mscale = f.mscale_all_dim = 0;
  RC_ASSERT(close(compute_frequencies<Real>(f, d).attention_factor, g(Real(1))));
  f.mscale = 0.8;
  f.mscale_all_dim = 1.3;
  RC_ASSERT(close(compute_frequencies<Real>(f, d).attention_factor, g(Real(0.8)) / g(Real(1.3))));
  f.mscale_all_dim = 0;  // only one of the two given: HF falls back to g(s, 1)
  RC_ASSERT(close(compute_frequencies<Real>(f, d).attention_factor, g(Real(1))));
  f.attention_factor = 0.625;
  RC_ASSERT(compute_frequencies<Real>(f, d).attention_factor == Real(0.625));
}

RC_GTEST_PROP(RopeSchemeYarn, TruncateOffKeepsTheRawRange, ()) {
  const int d = draw_d();
  FreqSpec f = draw(ROPECHECK_SCHEME_YARN, d);
  f.truncate = false;
  const auto r = yarn_correction_range<Real>(f, d);
  RC_ASSERT(r.low == (r.low_raw < 0 ? Real(0) : r.low_raw));
  RC_ASSERT(r.high == (r.high_raw > Real(d - 1) ? Real(d - 1) : r.high_raw));
}

RC_GTEST_PROP(RopeSchemeLlama3, HasThreeBandsContinuousAtTheEdgesAndMonotone, ()) {
  const int d = draw_d();
  const FreqSpec f = draw(ROPECHECK_SCHEME_LLAMA3, d);
  const Real two_pi = 2 * boost::math::constants::pi<Real>();
  const Real L(f.original_max_position), s(f.factor);
  const Real lf(f.low_freq_factor), hf(f.high_freq_factor);
  const Real w_hi = two_pi * hf / L, w_lo = two_pi * lf / L;
  const Real eps = ldexp(Real(1), -60);
  if (!(f.high_freq_factor > f.low_freq_factor)) {
    // Equal factors (Llama 4 Scout): one edge, no band: w just above the
    // edge's frequency, w / s just below it.
    RC_ASSERT(llama3_scale(w_hi * (1 + eps), f) == w_hi * (1 + eps));
    RC_ASSERT(llama3_scale(w_lo * (1 - eps), f) == w_lo * (1 - eps) / s);
    return;
  }
  // Continuity: at wavelength L/hf the blend equals w, at L/lf it equals w/s.
  RC_ASSERT(close(llama3_scale(w_hi, f), w_hi));
  RC_ASSERT(close(llama3_scale(w_lo, f), w_lo / s));
  // Just outside each edge the other branch agrees to first order.
  RC_ASSERT(abs(llama3_scale(w_hi * (1 + eps), f) - w_hi) <= w_hi * eps * 4);
  RC_ASSERT(abs(llama3_scale(w_lo * (1 - eps), f) - w_lo / s) <= w_lo * eps * 4 * s);
  // Bands and monotonicity over the model's own frequencies.
  const auto w = compute_frequencies<Real>(f, d);
  for (int i = 0; i < d / 2; ++i) {
    const Real base = default_inv_freq(Real(f.base), i, d);
    const Real lambda = two_pi / base;
    if (lambda < L / hf) RC_ASSERT(w.inv_freq[i] == base);
    if (lambda > L / lf) RC_ASSERT(close(w.inv_freq[i], base / s));
    if (i > 0 && s >= 1) RC_ASSERT(w.inv_freq[i] <= w.inv_freq[i - 1]);
  }
}

RC_GTEST_PROP(RopeSchemeLongRope, SwitchesFactorsExactlyAboveOriginalLength, ()) {
  const int d = draw_d();
  FreqSpec f = draw(ROPECHECK_SCHEME_LONGROPE, d);
  f.attention_factor.reset();
  f.seq_len = f.original_max_position;
  const auto short_w = compute_frequencies<Real>(f, d);
  f.seq_len = f.original_max_position + 1;
  const auto long_w = compute_frequencies<Real>(f, d);
  for (int i = 0; i < d / 2; ++i) {
    const Real base = default_inv_freq(Real(f.base), i, d);
    RC_ASSERT(close(short_w.inv_freq[i], base / Real(f.short_factor[i])));
    RC_ASSERT(close(long_w.inv_freq[i], base / Real(f.long_factor[i])));
  }
  const Real s(f.factor);
  const Real expect = s <= 1 ? Real(1) : sqrt(1 + log(s) / log(Real(f.original_max_position)));
  RC_ASSERT(close(long_w.attention_factor, expect));
  RC_ASSERT(close(short_w.attention_factor, expect));  // HF: the factor does not switch
}

}  // namespace
}  // namespace ropecheck::ref
