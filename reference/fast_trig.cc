#include "reference/fast_trig.h"

#include <mpfr.h>

#include <cmath>
#include <cstdint>

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
    const auto to_dd = [&](mpfr_srcptr a) {
      DD d;
      d.hi = mpfr_get_d(a, MPFR_RNDN);
      mpfr_sub_d(rest, a, d.hi, MPFR_RNDN);
      d.lo = mpfr_get_d(rest, MPFR_RNDN);
      return d;
    };
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_div_2ui(v, v, 1, MPFR_RNDN);
    for (double& p : pio2) {
      p = mpfr_get_d(v, MPFR_RNDN);
      mpfr_sub_d(v, v, p, MPFR_RNDN);  // exact at 256 bits
    }
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

DD from(double a) { return {a, 0.0}; }

// r = a - k pi/2, |r| <= pi/4 (1 + 2^-50), k returned. Every k (pi/2)_i is
// an exact double-double (TwoProd, |k| < 2^41); the sums carry errors of at
// most 2^-102 of partial sums below 1 each: |r - (a - k pi/2)| <= 2^-99.6.
DD reduce(DD a, const Constants& K, std::int64_t* k_out) {
  constexpr double kTwoOverPi = 0.63661977236758134308;
  const double k = std::nearbyint(a.hi * kTwoOverPi);
  *k_out = static_cast<std::int64_t>(k);
  if (*k_out == 0) return a;
  double h0, l0, h1, l1, h2, l2, s, e;
  eft::two_prod(k, K.pio2[0], h0, l0);
  eft::two_prod(k, K.pio2[1], h1, l1);
  eft::two_prod(k, K.pio2[2], h2, l2);
  eft::two_sum(a.hi, -h0, s, e);  // the big cancellation, exact
  DD r = add(from(s), from(e));
  r = add(r, from(a.lo));
  r = sub(r, from(l0));
  r = sub(r, DD{h1, l1});
  r = sub(r, DD{h2, l2});
  return sub(r, from(k * K.pio2[3]));
}

}  // namespace

SinCos sincos_dd(DD angle) {
  const Constants& K = constants();
  std::int64_t k = 0;
  const DD r = reduce(angle, K, &k);
  const int j = static_cast<int>(std::nearbyint(r.hi * kSteps));
  const DD t = sub(r, from(static_cast<double>(j) / kSteps));  // |t| <= 1/128 (1 + 2^-40)
  const DD t2 = mul(t, t);
  // Taylor series on |t| <= 2^-7: truncated after t^10 (cos) and t^11
  // (sin), each remainder below 2^-112. The terms from t^6 (cos) and t^7
  // (sin) on are below 2^-51 and 2^-61 and summed in double (error below
  // 2^-103 absolute); the others in double-double.
  const double t2h = t2.hi;
  const double tail_c = -K.inv6f + t2h * (K.inv8f + t2h * -K.inv10f);
  const double tail_s = -K.inv7f + t2h * (K.inv9f + t2h * -K.inv11f);
  DD qc = add(K.inv4f, mul(t2, tail_c));
  qc = add(from(-0.5), mul(t2, qc));
  const DD cos_t = add(from(1.0), mul(t2, qc));
  DD qs = add(K.inv5f, mul(t2, tail_s));
  qs = sub(mul(t2, qs), K.inv3f);
  qs = add(from(1.0), mul(t2, qs));
  const DD sin_t = mul(t, qs);
  // Angle addition with the table: cos(j/64 + t), sin(j/64 + t).
  const int aj = j < 0 ? -j : j;
  const DD cj = K.cos_j[aj];
  const DD sj = j < 0 ? eft::neg(K.sin_j[aj]) : K.sin_j[aj];
  const DD cr = sub(mul(cj, cos_t), mul(sj, sin_t));
  const DD sr = add(mul(sj, cos_t), mul(cj, sin_t));
  // Quadrant k mod 4: cos(r + k pi/2), sin(r + k pi/2), by exact swaps and
  // sign changes.
  switch (static_cast<int>(k & 3)) {
    case 0: return {cr, sr};
    case 1: return {eft::neg(sr), cr};
    case 2: return {eft::neg(cr), eft::neg(sr)};
    default: return {sr, eft::neg(cr)};
  }
}

}  // namespace ropecheck::ref
