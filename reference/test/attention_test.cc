// SPDX-License-Identifier: MIT
// Attention-level consequences of RoPE, on the reference (exact rotations,
// sums in double): logits depend only on m - n; RoPER (values rotated by
// their position, weighted, the sum rotated back by the query's position)
// equals the weighted sum of values rotated by the relative offset; and RoPE
// inside linear attention (RoFormer eq. 19) computed with prefix sums equals
// the quadratic form. Plus Rope/LongTermDecay (RoFormer section 3.4.3).
#include <gtest/gtest.h>

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <fstream>
#include <vector>

#include "core/cases/cases.h"
#include "reference/rotation.h"
#include "core/cases/rng.h"

namespace ropecheck::ref {
namespace {

using Vec = std::vector<double>;

struct Fixture {
  FreqSpec spec;
  int d = 0;
  ropecheck_layout_t layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  Rng rng{0};
  Fixture() {
    d = 2 * *rc::gen::inRange(1, 33);
    rng = Rng(*rc::gen::inRange<std::uint64_t>(0, 1u << 30));
    const auto scheme = static_cast<ropecheck_scheme_t>(*rc::gen::inRange(0, int{ROPECHECK_SCHEME_COUNT}));
    spec = draw_scheme(rng, d, scheme);
    spec.attention_factor = 1.0;  // rotations; m would scale every identity by m^2
    layout = *rc::gen::element(ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED);
  }
  Vec random_vec() {
    Vec v(d);
    for (auto& x : v) x = rng.uniform(-1, 1);
    return v;
  }
  // Exact rotation by position p (forward), rounded to double.
  Vec rot(ReferenceRope<Real>& rope, const Vec& x, std::int64_t p,
          ropecheck_direction_t dir = ROPECHECK_DIRECTION_FORWARD) {
    std::vector<Real> in(x.begin(), x.end()), out(d);
    rope.rotate(in.data(), out.data(), p, layout, dir);
    Vec r(d);
    for (int j = 0; j < d; ++j) r[j] = out[j].convert_to<double>();
    return r;
  }
};

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

RC_GTEST_PROP(RopeAttention, LogitsDependOnlyOnRelativePosition, ()) {
  Fixture fx;
  ReferenceRope<Real> rope(fx.spec, {fx.d, fx.d});
  const Vec q = fx.random_vec(), k = fx.random_vec();
  const auto m = *rc::gen::inRange<std::int64_t>(0, 1 << 20);
  const auto n = *rc::gen::inRange<std::int64_t>(0, 1 << 20);
  const auto t = *rc::gen::inRange<std::int64_t>(-(1 << 20), 1 << 20);
  const double a = dot(fx.rot(rope, q, m), fx.rot(rope, k, n));
  const double b = dot(fx.rot(rope, q, m + t), fx.rot(rope, k, n + t));
  const double c = dot(fx.rot(rope, q, m - n), k);  // the logit is q^T R_{n-m} k
  RC_ASSERT(std::fabs(a - b) <= 1e-14 * fx.d);
  RC_ASSERT(std::fabs(a - c) <= 1e-14 * fx.d);
}

RC_GTEST_PROP(RopeAttention, RoperEqualsValuesRotatedByRelativeOffset, ()) {
  Fixture fx;
  ReferenceRope<Real> rope(fx.spec, {fx.d, fx.d});
  const int n_values = *rc::gen::inRange(1, 6);
  const auto m = *rc::gen::inRange<std::int64_t>(0, 1 << 16);
  Vec lhs_sum(fx.d, 0.0), rhs(fx.d, 0.0);
  for (int v = 0; v < n_values; ++v) {
    const Vec val = fx.random_vec();
    const double weight = fx.rng.uniform(0, 1);
    const auto n = *rc::gen::inRange<std::int64_t>(0, 1 << 16);
    const Vec rotated = fx.rot(rope, val, n);              // R_n v_n
    const Vec relative = fx.rot(rope, val, n - m);         // R_{n-m} v_n
    for (int j = 0; j < fx.d; ++j) {
      lhs_sum[j] += weight * rotated[j];
      rhs[j] += weight * relative[j];
    }
  }
  const Vec lhs = fx.rot(rope, lhs_sum, m, ROPECHECK_DIRECTION_INVERSE);  // R_m^T sum
  for (int j = 0; j < fx.d; ++j) RC_ASSERT(std::fabs(lhs[j] - rhs[j]) <= 1e-13 * n_values);
}

RC_GTEST_PROP(RopeAttention, LinearAttentionPrefixSumsEqualTheQuadraticForm, ()) {
  Fixture fx;
  ReferenceRope<Real> rope(fx.spec, {fx.d, fx.d});
  const int n = *rc::gen::inRange(1, 9), dv = 3;
  // phi = elu + 1 keeps features positive, as RoFormer's linear attention does.
  auto phi = [](Vec v) {
    for (auto& x : v) x = x > 0 ? x + 1 : std::exp(x);
    return v;
  };
  std::vector<Vec> q(n), k(n), v(n);
  std::vector<std::int64_t> pos(n);
  for (int i = 0; i < n; ++i) {
    q[i] = phi(fx.random_vec());
    k[i] = phi(fx.random_vec());
    v[i] = Vec(dv);
    for (auto& x : v[i]) x = fx.rng.uniform(-1, 1);
    pos[i] = i == 0 ? 0 : pos[i - 1] + static_cast<std::int64_t>(fx.rng.range(0, 1000));
  }
  // Prefix state S = sum_{n<=m} (R_n phi(k_n)) v_n^T, z = sum phi(k_n).
  std::vector<double> S(static_cast<std::size_t>(fx.d) * dv, 0.0);
  Vec z(fx.d, 0.0);
  for (int m = 0; m < n; ++m) {
    const Vec rk = fx.rot(rope, k[m], pos[m]);
    for (int a = 0; a < fx.d; ++a) {
      z[a] += k[m][a];
      for (int b = 0; b < dv; ++b) S[a * dv + b] += rk[a] * v[m][b];
    }
    const Vec rq = fx.rot(rope, q[m], pos[m]);
    const double denom_prefix = dot(q[m], z);
    double denom_quad = 0;
    Vec quad(dv, 0.0), prefix(dv, 0.0);
    for (int b = 0; b < dv; ++b)
      for (int a = 0; a < fx.d; ++a) prefix[b] += rq[a] * S[a * dv + b];
    for (int j = 0; j <= m; ++j) {
      const double w = dot(rq, fx.rot(rope, k[j], pos[j]));
      denom_quad += dot(q[m], k[j]);
      for (int b = 0; b < dv; ++b) quad[b] += w * v[j][b];
    }
    RC_ASSERT(std::fabs(denom_prefix - denom_quad) <= 1e-12 * denom_quad);
    for (int b = 0; b < dv; ++b)
      RC_ASSERT(std::fabs(prefix[b] / denom_prefix - quad[b] / denom_quad) <= 1e-12 * (m + 1) * fx.d);
  }
}

// The RoFormer bound decays with relative distance over the range the paper
// plots (octave-window maxima strictly decrease up to r = 256 for the
// default d=128, b=1e4), and beyond it stays below half its value at r = 0.
// The curve is written to rope_decay_curve.csv for plotting.
TEST(RopeLongTermDecay, BoundDecreasesOverOctavesAndStaysLow) {
  FreqSpec f;
  const auto freqs = compute_frequencies<Real>(f, 128);
  const auto curve = decay_curve(freqs, 1 << 14, 1);
  ASSERT_EQ(curve.size(), (1u << 14) + 1);
  EXPECT_DOUBLE_EQ(curve[0], 32.5);  // sum_{j=1}^{64} j / 64
  double prev = curve[0];
  for (int k = 1; k <= 8; ++k) {
    double mx = 0;
    for (std::int64_t r = std::int64_t{1} << (k - 1); r < (std::int64_t{1} << k); ++r) mx = std::max(mx, curve[r]);
    EXPECT_LT(mx, prev) << "octave [2^" << k - 1 << ", 2^" << k << ")";
    prev = mx;
  }
  for (std::size_t r = 256; r < curve.size(); ++r) EXPECT_LT(curve[r], curve[0] / 2) << r;
  std::ofstream csv("rope_decay_curve.csv");
  csv << "relative_distance,bound\n";
  for (std::size_t r = 0; r < curve.size(); ++r) csv << r << "," << curve[r] << "\n";
}

}  // namespace
}  // namespace ropecheck::ref
