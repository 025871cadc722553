// SPDX-License-Identifier: MIT
// exp, log and sqrt of double-double arguments with proven error bounds.
#include "reference/dd_math.h"

#include <mpfr.h>

#include <cmath>

#include "reference/mpfr_dd.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace ropecheck::ref {
namespace {

using eft::add;
using eft::DD;
using eft::mul;
using eft::sub;

// exp(j/64) for |j| <= kMaxJ (|r| <= ln2/2 = 0.347 < 23/64), and ln 2 as
// three doubles, computed once with MPFR at 256 bits (each table entry the
// double-double nearest the real: error <= 2^-106 relative).
constexpr int kSteps = 64;
constexpr int kMaxJ = 23;

struct ExpConstants {
  double ln2[3];
  DD exp_j[2 * kMaxJ + 1];
  DD inv2f, inv3f, inv4f, inv5f;  // 1/n!
  double inv_fact[13];            // 1/n! rounded, n = 6..12 used

  ExpConstants() {
    mpfr_t v, rest, x;
    mpfr_inits2(256, v, rest, x, static_cast<mpfr_ptr>(nullptr));
    const auto to_dd = [&](mpfr_srcptr a) { return mpfr_to_dd(a, rest); };
    mpfr_const_log2(v, MPFR_RNDN);
    peel_doubles(v, ln2);  // exact at 256 bits
    for (int j = -kMaxJ; j <= kMaxJ; ++j) {
      mpfr_set_si(x, j, MPFR_RNDN);
      mpfr_div_ui(x, x, kSteps, MPFR_RNDN);  // exact
      mpfr_exp(v, x, MPFR_RNDN);
      exp_j[j + kMaxJ] = to_dd(v);
    }
    for (unsigned n = 0; n <= 12; ++n) {
      mpfr_fac_ui(x, n, MPFR_RNDN);
      mpfr_ui_div(v, 1, x, MPFR_RNDN);
      inv_fact[n] = mpfr_get_d(v, MPFR_RNDN);
      if (n == 2) inv2f = to_dd(v);
      if (n == 3) inv3f = to_dd(v);
      if (n == 4) inv4f = to_dd(v);
      if (n == 5) inv5f = to_dd(v);
    }
    mpfr_clears(v, rest, x, static_cast<mpfr_ptr>(nullptr));
  }
};

const ExpConstants& constants() {
  static const ExpConstants c;
  return c;
}

DD from(double a) { return {a, 0.0}; }

}  // namespace

// x = k ln2 + j/64 + t with |k| <= 866, |j| <= 23, |t| <= 1/128 (1 + 2^-40):
// k ln2 is exact as k ln2_0 + k ln2_1 (TwoProd) + k ln2_2 (rounded, 2^-150),
// the reduction's sums err by <= 2^-101 in all; exp(t) is its Taylor
// series to t^12 (remainder < 2^-110), the terms from t^6 on (< 2^-51)
// summed in double; then exp(j/64) (table) times exp(t) times 2^k (exact).
// Total relative error <= 2^-99.4 < kExpRel.
DD exp_dd(DD x) {
  const ExpConstants& K = constants();
  constexpr double kInvLn2 = 1.4426950408889634074;
  const double k = std::nearbyint(x.hi * kInvLn2);
  double h0, l0, h1, l1, s, e;
  eft::two_prod(k, K.ln2[0], h0, l0);
  eft::two_prod(k, K.ln2[1], h1, l1);
  eft::two_sum(x.hi, -h0, s, e);
  DD r = add(from(s), from(e));
  r = add(r, from(x.lo));
  r = sub(r, from(l0));
  r = sub(r, DD{h1, l1});
  r = sub(r, from(k * K.ln2[2]));
  const int j = static_cast<int>(std::nearbyint(r.hi * kSteps));
  const DD t = sub(r, from(static_cast<double>(j) / kSteps));
  const double th = t.hi;
  const double* f = K.inv_fact;
  const double tail = f[6] + th * (f[7] + th * (f[8] + th * (f[9] + th * (f[10] + th * (f[11] + th * f[12])))));
  DD q = add(K.inv5f, mul(t, tail));
  q = add(K.inv4f, mul(t, q));
  q = add(K.inv3f, mul(t, q));
  q = add(K.inv2f, mul(t, q));
  q = add(from(1.0), mul(t, q));
  q = add(from(1.0), mul(t, q));
  const DD v = mul(K.exp_j[j + kMaxJ], q);
  const double scale = std::ldexp(1.0, static_cast<int>(k));  // exact, normal for |k| <= 866
  return {v.hi * scale, v.lo * scale};
}

// One Newton step from y0 = log(x.hi) (libm's, any accuracy): with
// z = x e^-y0 - 1, log x = y0 + log1p(z) = y0 + z - z^2/2 + R, |R| <=
// |z|^3 / (3 (1 - |z|)). The error is measured, not assumed: z carries
// exp_dd's kExpRel and the product's and difference's 2^-102 each.
bool log_dd(DD x, DD* out, double* err) {
  const double y0 = std::log(x.hi);
  if (!(std::fabs(y0) <= kMaxExpArg)) return false;
  const DD e = exp_dd(from(-y0));
  const DD z = sub(mul(x, e), from(1.0));
  const double az = std::fabs(z.hi);
  if (!(az <= 0x1p-30)) return false;
  const double z2 = z.hi * z.hi;  // <= 2^-60: its rounding errs by <= 2^-113
  const DD l1p = sub(z, from(0.5 * z2));
  *out = add(from(y0), l1p);
  // |z - Z| <= (1 + |z|) (kExpRel + 2^-101) for the exact Z; log1p is
  // 1/(1 - |z|)-Lipschitz there; the series remainder, the rounding of z^2
  // and the final sums' 2^-102 each.
  *err = ((kExpRel + 0x1p-101) * 1.001 + az * az * az + 0x1p-112 + 0x1p-101 * std::fabs(out->hi)) * (1 + 0x1p-40);
  return true;
}

// One Newton step from y0 = sqrt(x.hi), correctly rounded by IEEE 754:
// y0 = sqrt(x)(1 + d), |d| <= 2^-52 (x.lo included); y1 = y0 + (x - y0^2)
// / (2 y0) has relative error d^2/2 < 2^-104, plus 2^-102 for each of the
// three double-double operations: < 2^-100 = kSqrtRel.
DD sqrt_dd(DD x) {
  const double y0 = std::sqrt(x.hi);
  double p, pe;
  eft::two_prod(y0, y0, p, pe);
  const DD resid = sub(x, DD{p, pe});
  const DD corr = eft::div(resid, from(2.0 * y0));
  return add(from(y0), corr);
}

}  // namespace ropecheck::ref
