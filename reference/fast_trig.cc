// SPDX-License-Identifier: MIT
// The definitions of reference/fast_trig.h.
#include "reference/fast_trig.h"

#include <mpfr.h>

#include <cmath>
#include <cstdint>

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

// Table step: r = j/64 + t with |t| <= 1/128, and j <= 51 since |r| <=
// pi/4 (1 + 2^-50).
constexpr int kSteps = 64;
constexpr int kMaxJ = 51;

// Constants, each the double-double nearest the real (error <= 2^-106 |v|),
// computed once with MPFR at 256 bits: a table written out by hand could
// carry a typo no test would find at these bits.
struct Constants {
  double pio2[4];  // pi/2 = sum, each term the double nearest the rest
  DD sin_j[kMaxJ + 1], cos_j[kMaxJ + 1];  // sin(j/64), cos(j/64)
  DD inv3f, inv5f, inv4f;                 // 1/3!, 1/5!, 1/4!
  double inv6f, inv7f, inv8f, inv9f, inv10f, inv11f;

  Constants() {
    mpfr_t v, rest, x;
    mpfr_inits2(256, v, rest, x, static_cast<mpfr_ptr>(nullptr));
    const auto to_dd = [&](mpfr_srcptr a) { return mpfr_to_dd(a, rest); };
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_div_2ui(v, v, 1, MPFR_RNDN);
    peel_doubles(v, pio2);  // exact at 256 bits
    for (int j = 0; j <= kMaxJ; ++j) {
      mpfr_set_si(x, j, MPFR_RNDN);
      mpfr_div_ui(x, x, kSteps, MPFR_RNDN);  // exact
      mpfr_sin_cos(v, rest, x, MPFR_RNDN);
      mpfr_set(x, rest, MPFR_RNDN);
      sin_j[j] = to_dd(v);
      cos_j[j] = to_dd(x);
    }
    const auto inv_fact = [&](unsigned n) {
      mpfr_fac_ui(x, n, MPFR_RNDN);
      mpfr_ui_div(v, 1, x, MPFR_RNDN);
      return to_dd(v);
    };
    inv3f = inv_fact(3);
    inv4f = inv_fact(4);
    inv5f = inv_fact(5);
    inv6f = inv_fact(6).hi;
    inv7f = inv_fact(7).hi;
    inv8f = inv_fact(8).hi;
    inv9f = inv_fact(9).hi;
    inv10f = inv_fact(10).hi;
    inv11f = inv_fact(11).hi;
    mpfr_clears(v, rest, x, static_cast<mpfr_ptr>(nullptr));
  }
};

const Constants& constants() {
  static const Constants c;
  return c;
}

// r = a - k pi/2, |r| <= pi/4 (1 + 2^-50), k returned. Every k (pi/2)_i is
// an exact double-double (TwoProd, |k| < 2^41); the terms below 2^-64
// (k (pi/2)_1's error, k (pi/2)_2, k (pi/2)_3) are summed in double
// (error < 2^-116), the others with four double-word additions of 2^-102
// relative each, on partial sums below 1: |r - (a - k pi/2)| < 2^-99.9.
DD reduce(DD a, const Constants& K, std::int64_t* k_out) {
  constexpr double kTwoOverPi = 0.63661977236758134308;
  const double k = std::nearbyint(a.hi * kTwoOverPi);
  *k_out = static_cast<std::int64_t>(k);
  if (*k_out == 0) return a;
  double h0, l0, h1, l1, s, e;
  eft::two_prod(k, K.pio2[0], h0, l0);
  eft::two_prod(k, K.pio2[1], h1, l1);
  eft::two_sum(a.hi, -h0, s, e);  // the big cancellation, exact
  DD r{s, e};
  r = add(r, a.lo);
  r = add(r, -l0);
  r = add(r, -h1);
  return add(r, ((-l1 - k * K.pio2[2]) - k * K.pio2[3]));
}

}  // namespace

// With r = j/64 + t, |t| <= 2^-7 (1 + 2^-40):
//   cos t = 1 - t^2/2 + T_c,  T_c = t^4/4! - t^6/6! + t^8/8! - t^10/10!
//   sin t = t - t^3/3! + T_s,  T_s = t^5/5! - t^7/7! + t^9/9! - t^11/11!
// (remainders below 2^-112). t^2/2 and t^3/3! are double-double products;
// T_c (< 2^-32.5) and T_s (< 2^-41.9) are summed in double from t^2's high
// part, within 2^-50.5 of themselves (t^2's rounding, the coefficients',
// three roundings): 2^-83.0 and 2^-92.4. The two sums, four products and
// two sums of the angle addition add 2^-102 each on magnitudes <= 1, the
// table 2^-106 per entry, the reduction 2^-99.9: |error| < 2^-82.9 (the
// bounds returned take T_c's and T_s's share as 2^-50: at most 2^-82.5). The
// bounds returned are computed from t itself: for j = 0 and k = 0 (|a| <
// 1/128) the table entries are exactly 1 and 0 and nothing was reduced, so
// every error left is relative to t.
SinCos sincos_dd(DD angle) {
  const Constants& K = constants();
  std::int64_t k = 0;
  const DD r = reduce(angle, K, &k);
  const int j = static_cast<int>(std::nearbyint(r.hi * kSteps));
  const DD t = add(r, -static_cast<double>(j) / kSteps);
  const DD t2 = mul(t, t);
  const double u = t2.hi;
  const double tc = u * u * (K.inv4f.hi + u * (-K.inv6f + u * (K.inv8f - u * K.inv10f)));
  const DD t3 = mul(t2, t);
  const double ts = t3.hi * u * (K.inv5f.hi + u * (-K.inv7f + u * (K.inv9f - u * K.inv11f)));
  const DD cos_t = add(add(DD{-0.5 * t2.hi, -0.5 * t2.lo}, tc), 1.0);
  const DD sin_t = add(t, add(mul(t3, eft::neg(K.inv3f)), ts));
  // Angle addition with the table: cos(j/64 + t), sin(j/64 + t).
  const int aj = j < 0 ? -j : j;
  const DD cj = K.cos_j[aj];
  const DD sj = j < 0 ? eft::neg(K.sin_j[aj]) : K.sin_j[aj];
  const DD cr = sub(mul(cj, cos_t), mul(sj, sin_t));
  const DD sr = add(mul(sj, cos_t), mul(cj, sin_t));
  // cos t: T_c's 2^-50.5 (taken as 2^-50) plus three operations of 2^-102
  // on values <= 1; sin t: T_s's likewise plus four relative 2^-102.
  const double at = std::fabs(t.hi) * (1 + 0x1p-50);
  const double e_ct = 0x1p-50 * (u * u) * (1.0 / 24) + 0x1p-100;
  const double e_st = 0x1p-50 * (at * u * u) * (1.0 / 120) + 0x1p-99 * at;
  const double e_red = k == 0 ? 0.0 : 0x1p-99;
  // With j != 0: the products by the table entries (<= 1) and the sums add
  // below 2^-99.5.
  const double e_c = (j == 0 ? e_ct : e_ct + e_st + 0x1p-99) + e_red;
  const double e_s = (j == 0 ? e_st : e_ct + e_st + 0x1p-99) + e_red;
  // Quadrant k mod 4: cos(r + k pi/2), sin(r + k pi/2), by exact swaps and
  // sign changes.
  switch (static_cast<int>(k & 3)) {
    case 0: return {cr, sr, e_c, e_s};
    case 1: return {eft::neg(sr), cr, e_s, e_c};
    case 2: return {eft::neg(cr), eft::neg(sr), e_c, e_s};
    default: return {sr, eft::neg(cr), e_s, e_c};
  }
}

}  // namespace ropecheck::ref
