// SPDX-License-Identifier: MIT
// The fast exact reference against the MPFR path, bit for bit, on edge
// tables built to sit where its bounds are tightest: exact ties and
// near-ties of every dtype's rounding, the overflow threshold, subnormal
// inputs, huge positions, signed zeros, cancellation as deep as each format
// allows, huge inputs and extreme attention factors. Each table runs in
// both layouts and both directions for fp32, fp16, bf16 and fp64 storage.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

#include "core/cases/rng.h"
#include "core/test/fast_reference_check.h"
#include "reference/checked_rounding.h"
#include "reference/rotation.h"
#include "ropecheck/dtype.h"

namespace ropecheck::test {
namespace {

// sign * (1 + mant 2^(1-p)) 2^e, a normal value of the format.
double in_format(Rng& rng, ropecheck_dtype_t t, int e, bool odd = false) {
  const DtypeFormat f = dtype_format(t);
  std::int64_t mant = rng.range(0, (std::int64_t{1} << (f.precision - 1)) - 1);
  if (odd) mant |= 1;
  return (rng.chance(0.5) ? -1.0 : 1.0) * std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), 1 - f.precision), e);
}

// At a zero angle the output is exactly x m (x of the format, m a double):
// an exact tie of the double or dtype rounding, or a chosen distance from
// one; w = 0 gives a zero angle at any position, negative ones included.
TEST(FastReferenceEdges, TiesNearTiesAndTheOverflowThreshold) {
  Tally t;
  Rng rng(0x7165);
  for (auto dt : kAllDtypes) {
    const DtypeFormat f = dtype_format(dt);
    const int p = f.precision;
    const double u = std::ldexp(1.0, -p);
    std::vector<double> ms = {1.5, 0.75, 1.25, 3.0, 0.375, 1 + 2 * u, 1 + u, 1 + u / 2, 1 - u / 2,
                              1 + u + 0x1p-70, 1 + u - 0x1p-70, 1 + 0x1p-60, 1 - 0x1p-60,
                              1 - u / 2 - 0x1p-70, 1 - u / 2 + 0x1p-70, 1 - u, 1 - 0x1p-54};
    for (double m : ms)
      for (const auto& [spec, pos] : std::vector<std::pair<ref::FreqSpec, std::vector<std::int64_t>>>{
               {default_spec(m), {0, 0}}, {explicit_spec({0.0, 0.0, 0.0, 0.0}, m), {0, 7, -7}}})
        compare_all_ways(edge_case(spec, 4, dt, pos), [&](int, std::int64_t, int i) {
          // Odd significands across binades, the subnormal range included;
          // a power of two in pair 3 (the grid below it is finer).
          const double x = i == 0 ? std::ldexp(static_cast<double>(2 * rng.range(0, (std::int64_t{1} << (p - 2)) - 1) + 1),
                                               f.emin - p + 1)
                           : i == 3 ? std::ldexp(1.0, static_cast<int>(rng.range(f.emin, 6)))
                                    : in_format(rng, dt, i == 1 ? f.emin : static_cast<int>(rng.range(-6, 6)), true);
          const double y = rng.chance(0.3) ? 0.0 : in_format(rng, dt, static_cast<int>(rng.range(-6, 6)), true);
          return std::pair{x, y};
        }, &t);
    if (dt == ROPECHECK_DTYPE_F64) continue;
    // Ties of the double rounding itself: x = 1 + a 2^(1-p), m = 1 + b 2^(p-54).
    for (int k = 0; k < 8; ++k) {
      const double m = 1 + std::ldexp(static_cast<double>(2 * rng.range(0, 1000) + 1), -(54 - p));
      compare_all_ways(edge_case(default_spec(m), 4, dt, {0}), [&](int, std::int64_t, int) {
        return std::pair{in_format(rng, dt, 0, true), in_format(rng, dt, 0, true)};
      }, &t);
    }
    // The overflow threshold (2^p - 1/2) 2^(emax-p+1) exactly, and beside it.
    const double mt = (std::ldexp(1.0, p) - 0.5) / std::ldexp(1.0, p - 1);
    for (double m : {mt, mt + 0x1p-45, mt - 0x1p-45, mt + 0x1p-100, mt - 0x1p-100, 2.0, 1.0})
      compare_all_ways(edge_case(explicit_spec({0.0, 0.0}, m), 2, dt, {0, 3}), [&](int, std::int64_t, int i) {
        const double big = std::ldexp(1.0, f.emax);
        return i == 0 ? std::pair{big, -big} : std::pair{-big, 0.0};
      }, &t);
  }
  expect_identical("ties, near-ties, overflow threshold", t);
}

// At a zero angle with m a short double the output x m is exact, and for
// m = 1.25, 0.75 or 1.5 about a quarter to a half of a format's values (for
// m = 0.5 every odd subnormal) put it exactly halfway between two of the
// format's values: ties-to-even decides those without MPFR, so this table
// (every position 0) needs no fallback at all, and gives the same bits.
TEST(FastReferenceEdges, ExactTiesAreDecidedWithoutMpfr) {
  Tally t;
  Rng rng(0x713);
  for (auto dt : kAllDtypes) {
    DtypeFormat f = dtype_format(dt);
    // fp64's own bottom (2^-1022) lies below the range the fast path
    // decides in (kMinCheckedValue, 2^-960): left to MPFR by design.
    if (dt == ROPECHECK_DTYPE_F64) f.emin = -900;
    for (double m : {1.25, 0.75, 1.5, 0.5})
      compare_all_ways(edge_case(default_spec(m), 8, dt, {0, 0}), [&](int, std::int64_t, int i) {
        // Normal values near 1 and at the bottom of the range, and
        // subnormals (odd multiples of the quantum: halved, a tie).
        const double odd = static_cast<double>(2 * rng.range(0, (std::int64_t{1} << (f.precision - 2)) - 1) + 1);
        const double x = i % 3 == 0 ? std::ldexp(odd, f.emin - f.precision + 1)
                                    : in_format(rng, dt, i % 3 == 1 ? static_cast<int>(rng.range(-4, 4)) : f.emin);
        return std::pair{x, in_format(rng, dt, static_cast<int>(rng.range(-4, 4)))};
      }, &t);
  }
  expect_identical("exact ties at a zero angle", t);
  EXPECT_EQ(t.stats.fallbacks, 0u) << t.line();
}

// round_checked itself at an fp32 midpoint: decided (to the even
// neighbour) only when v is exactly the midpoint; v a hair above it (vl far
// below frac's own precision, which the sum would round away) is either
// left to MPFR or rounded up, never taken for a tie.
TEST(FastReferenceEdges, RoundCheckedTakesOnlyExactMidpointsForTies) {
  using ref::round_checked;
  const ref::GridFormat& f32 = ref::grid_format(ROPECHECK_DTYPE_F32);
  const double below = 1.0, above = 1.0 + 0x1p-23, mid = 1.0 + 0x1p-24;  // 1.0's significand is even
  double out = 0;
  EXPECT_TRUE(round_checked(mid, 0.0, 0.0, f32, &out));
  EXPECT_EQ(out, below);
  EXPECT_TRUE(round_checked(-(mid + 0x1p-23), 0.0, 0.0, f32, &out));  // 1 + 3 2^-24: up to the even 1 + 2^-22
  EXPECT_EQ(out, -(1.0 + 0x1p-22));
  if (round_checked(mid, 0x1p-90, 0.0, f32, &out)) {
    EXPECT_EQ(out, above);
  }
  if (round_checked(mid, -0x1p-90, 0.0, f32, &out)) {
    EXPECT_EQ(out, below);
  }
  EXPECT_FALSE(round_checked(mid, 0.0, 0x1p-80, f32, &out));  // an error bound: either side
}

// A NaN in either element of a pair: both outputs are the MPFR path's NaN,
// whatever the angle and the other element (an infinity, a zero, a huge or
// a normal value), found without that path.
TEST(FastReferenceEdges, NanInputs) {
  Tally t;
  Rng rng(0x4e41);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (auto dt : kAllDtypes)
    for (std::optional<double> m : {std::optional<double>{}, std::optional<double>{0.3}})
      compare_all_ways(edge_case(default_spec(m), 8, dt, {0, 1, 12345, -7, 2147483647}), [&](int, std::int64_t, int) {
        const double other[] = {nan, -nan, inf, -inf, 0.0, -0.0, 1.0, draw_input(rng, dt)};
        const double o = other[rng.below(std::size(other))];
        return rng.chance(0.5) ? std::pair{rng.chance(0.5) ? nan : -nan, o} : std::pair{o, -nan};
      }, &t);
  expect_identical("NaN inputs", t);
  EXPECT_EQ(t.stats.fallbacks, 0u) << t.line();
}

TEST(FastReferenceEdges, SubnormalInputs) {
  Tally t;
  Rng rng(0x5b);
  for (auto dt : kAllDtypes) {
    const DtypeFormat f = dtype_format(dt);
    const double q = std::ldexp(1.0, f.emin - f.precision + 1);
    const double n = std::ldexp(1.0, f.emin);
    const std::vector<double> sub = {q, -q, n - q, -(n - q), n, -n, 3 * q, 0.0, -0.0, 1.0, -1.5};
    for (std::optional<double> m : {std::optional<double>{}, std::optional<double>{1.5}, std::optional<double>{0.3}})
      for (int rep = 0; rep < 4; ++rep)
        compare_all_ways(edge_case(default_spec(m), 8, dt, {0, 1, 12345, 2147483647, -7}), [&](int, std::int64_t, int) {
          const double x = rng.chance(0.7) ? sub[rng.below(sub.size())]
                                           : std::ldexp(static_cast<double>(rng.range(1, (std::int64_t{1} << (f.precision - 1)) - 1)),
                                                        f.emin - f.precision + 1);
          const double y = rng.chance(0.5) ? sub[rng.below(sub.size())] : draw_input(rng, dt);
          return rng.chance(0.5) ? std::pair{x, y} : std::pair{y, x};
        }, &t);
  }
  expect_identical("subnormal inputs", t);
}

TEST(FastReferenceEdges, HugeAndNegativePositions) {
  Tally t;
  Rng rng(0x9051);
  const std::vector<std::int64_t> pos = {0, 1, -1, (1 << 24) - 1, 1 << 24, (1 << 24) + 1, 2147483647, -2147483647,
                                         (std::int64_t{1} << 40) + 3, -((std::int64_t{1} << 40) + 3),
                                         std::int64_t{1} << 40, std::int64_t{1} << 53, INT64_MAX, INT64_MIN + 1};
  for (auto dt : kAllDtypes) {
    ref::FreqSpec yarn;
    yarn.scheme = ROPECHECK_SCHEME_YARN;
    yarn.factor = 16;
    yarn.original_max_position = 4096;
    yarn.mscale = 1.0;
    yarn.mscale_all_dim = 0.5;
    std::vector<double> w(32);
    for (auto& v : w) v = rng.log_uniform(1e-7, 2.0);
    w[3] = 0.0;
    for (const auto& spec : {default_spec(), default_spec(0.7), yarn, explicit_spec(w)})
      compare_all_ways(edge_case(spec, 32, dt, pos), [&](int, std::int64_t, int) {
        return std::pair{draw_input(rng, dt), draw_input(rng, dt)};
      }, &t);
  }
  expect_identical("huge and negative positions", t);
}

// x, y in {+0, -0, +1, -1} at angles +0, -0 (w = 0 at a negative position)
// and nonzero: the sign of every zero output must match.
TEST(FastReferenceEdges, SignedZeros) {
  Tally t;
  const double vals[] = {0.0, -0.0, 1.0, -1.0};
  for (auto dt : kAllDtypes)
    for (std::optional<double> m : {std::optional<double>{}, std::optional<double>{1.5}})
      for (int combo = 0; combo < 16; ++combo)
        compare_all_ways(edge_case(explicit_spec({0.0, 0.5, 1e-7, 0.0}, m), 4, dt, {0, 3, -3, 0, -1}),
                         [&](int w, std::int64_t, int i) {
                           const int k = (combo + w + i) % 16;
                           return std::pair{vals[k / 4], vals[k % 4]};
                         }, &t);
  expect_identical("signed zeros", t);
}

// (x, y) the best continued-fraction convergent of S/C (channel a: x C ~ y
// S) or of -C/S (channel b) that fits the format's significand: for fp64
// the output cancels to about 2^-106 of the products, the fast path's own
// resolution.
TEST(FastReferenceEdges, DeepCancellation) {
  Tally t;
  Rng rng(0xca);
  for (auto dt : kAllDtypes) {
    const double lim = std::ldexp(1.0, dtype_format(dt).precision);
    for (int rep = 0; rep < 6; ++rep) {
      std::vector<double> w(16);
      for (auto& v : w) v = rng.log_uniform(1e-6, 2.0);
      const ref::FreqSpec spec = explicit_spec(w, rep % 2 ? std::optional<double>{rng.uniform(0.5, 2.0)} : std::nullopt);
      const std::vector<std::int64_t> pos = {rng.range(1, 1000), rng.range(1, 1 << 24), -rng.range(1, 1 << 30),
                                             (std::int64_t{1} << 40) + 3};
      ref::ReferenceRope<ref::Real> rope(spec, {32, 32});
      const ref::Real& m = rope.freqs().attention_factor;
      for (bool inverse : {false, true}) {
        Case c = edge_case(spec, 16, dt, pos);
        c.direction = inverse ? ROPECHECK_DIRECTION_INVERSE : ROPECHECK_DIRECTION_FORWARD;
        const PairFn fn = [&](int w_, std::int64_t tok, int i) {
          const auto& tr = rope.trig(pos[static_cast<std::size_t>(tok)]);
          const ref::Real C = m * tr.cos[i];
          const ref::Real S = inverse ? ref::Real(-(m * tr.sin[i])) : ref::Real(m * tr.sin[i]);
          ref::Real r = (w_ + i) % 2 == 0 ? ref::Real(S / C) : ref::Real(-C / S);
          const double sign = r < 0 ? -1.0 : 1.0;
          r = abs(r);
          double h1 = 1, h2 = 0, k1 = 0, k2 = 1, bh = 1, bk = 0;  // convergents h/k -> r
          for (int it = 0; it < 200; ++it) {
            const ref::Real a = floor(r);
            const double ad = a.convert_to<double>();
            const double h = ad * h1 + h2, k = ad * k1 + k2;
            if (!(ad < lim && h < lim && k < lim)) break;
            bh = h, bk = k, h2 = h1, h1 = h, k2 = k1, k1 = k;
            const ref::Real fr = r - a;
            if (fr == 0) break;
            r = 1 / fr;
          }
          if (!(bk > 0)) return std::pair{1.0, 0.0};
          const int e = static_cast<int>(rng.range(-20, 0));
          return std::pair{sign * std::ldexp(bh, e), std::ldexp(bk, e)};
        };
        for (auto layout : {ROPECHECK_LAYOUT_INTERLEAVED, ROPECHECK_LAYOUT_HALF_SPLIT}) {
          c.layout = layout;
          compare_paths(c, edge_inputs(c, fn), &t);
        }
      }
    }
  }
  expect_identical("deep cancellation", t);
}

TEST(FastReferenceEdges, HugeInputsAndExtremeAttentionFactors) {
  Tally t;
  Rng rng(0x4e6);
  for (auto dt : kAllDtypes) {
    const DtypeFormat f = dtype_format(dt);
    const double mx = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax);
    const double near = std::ldexp(2.0 - std::ldexp(1.0, 2 - f.precision), f.emax);
    const double vals[] = {mx, -mx, near, -near, mx / 2, -mx / 2, 1.0, 0.0};
    // The attention factors a spec may hold (ref::validate), bounds included.
    for (double m : {1.0, 1.5, 2.0, 0.6, ref::kMaxAttentionFactor, ref::kMinAttentionFactor})
      for (int rep = 0; rep < 3; ++rep)
        compare_all_ways(edge_case(default_spec(m), 8, dt, {0, 1, 1000, 65536, 2147483647, -12345}),
                         [&](int, std::int64_t, int) {
                           return std::pair{vals[rng.below(8)], rng.chance(0.5) ? vals[rng.below(8)] : draw_input(rng, dt)};
                         }, &t);
  }
  expect_identical("huge inputs, extreme attention factors", t);
}

}  // namespace
}  // namespace ropecheck::test
