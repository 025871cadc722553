// SPDX-License-Identifier: MIT
// FastReference's per-(position, pair) entries: the angle, RN(cos), RN(sin)
// and the coefficients m cos, m sin with their radii, in double-double
// (fast_trig.h) when the bounds decide every rounding, else with MPFR
// exactly as the MPFR path computes them.
#include <cmath>
#include <cstdlib>

#include "reference/checked_rounding.h"
#include "reference/error_free.h"
#include "reference/fast_internal.h"
#include "reference/fast_trig.h"
#include "ropecheck/float_compare.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace ropecheck::ref {
namespace {

using eft::DD;

bool is_zero(double v) { return exactly_equal(v, 0.0); }

// Radii are computed in double: 2^-40 relative covers their own roundings.
constexpr double kSlack = 1.0 + 0x1p-40;
// |RN_P(p w) - (p w)| <= 2^-134 |p w| (the MPFR path's angle) plus the
// double-double product's 2^-102: 2^-101 bounds both.
constexpr double kAngleRel = 0x1p-101;
// The product m * cos in double-double (2^-102) and the MPFR path's own
// rounding of it (2^-134), twice over: 2^-100.
constexpr double kCoefRel = 0x1p-100;
// Positions beyond 2^53 are not all doubles; those angles go to MPFR.
constexpr std::int64_t kMaxFastPosition = std::int64_t{1} << 53;

// A coefficient from a normalised double-double V; false when V lies
// outside the range the per-element bound is proven for. hi may be 0 only
// for an exact zero (the per-element sign-of-zero rule relies on it).
bool make_coef(double hi, double lo, bool exact_zero_allowed, FastCoef* c) {
  c->hi = hi;
  c->lo = lo;
  c->hh = hi;
  c->hl = 0;
  if (is_zero(hi)) return exact_zero_allowed && is_zero(lo);
  const double a = std::fabs(hi);
  if (!(a >= kMinTrig && a <= kMaxTrig)) return false;
  if (!is_zero(lo) && !(std::fabs(lo) >= kMinLo)) return false;
  const eft::Halves h = eft::halves(hi);
  c->hh = h.h;
  c->hl = h.l;
  return true;
}

// RN(v) of a value within rad of d (normal, |d| <= 2^1002), when decided.
bool rounded(DD d, double rad, double* out) {
  if (!(std::fabs(d.hi) >= kMinCheckedValue)) return false;
  *out = d.hi;
  return value_checked(d.hi, d.lo, rad);
}

}  // namespace

FastValue fast_value(const Real& v) {
  mpfr_srcptr x = v.backend().data();
  FastValue f;
  f.hi = mpfr_get_d(x, MPFR_RNDN);
  if (mpfr_zero_p(x) || !std::isfinite(f.hi)) return f;
  mpfr_t rest;
  mpfr_init2(rest, mpfr_get_prec(x));
  mpfr_sub_d(rest, x, f.hi, MPFR_RNDN);  // exact: at most P - 52 bits
  f.lo = mpfr_get_d(rest, MPFR_RNDN);
  mpfr_sub_d(rest, rest, f.lo, MPFR_RNDN);  // exact likewise
  f.rad = std::fabs(mpfr_get_d(rest, MPFR_RNDU)) * kSlack;
  mpfr_clear(rest);
  return f;
}

FastTrig FastReference::mpfr_trig(std::int64_t position, int pair) {
  const Frequencies<Real>& f = exact_freqs();
  MpfrScratch& s = *mp_;
  FastTrig t{};
  // RN(p * w): p is exact at this precision, so one correctly rounded
  // product equals ReferenceRope::angle's Real(p) * w.
  mpfr_mul_si(s.angle, f.inv_freq[pair].backend().data(), static_cast<long>(position), MPFR_RNDN);
  // sin_cos is correctly rounded like cos and sin separately: same values.
  mpfr_sin_cos(s.s, s.c, s.angle, MPFR_RNDN);
  const mpfr_srcptr m = f.attention_factor.backend().data();
  mpfr_mul(s.mc, m, s.c, MPFR_RNDN);
  mpfr_mul(s.ms, m, s.s, MPFR_RNDN);
  t.cos_d = mpfr_get_d(s.c, MPFR_RNDN);
  t.sin_d = mpfr_get_d(s.s, MPFR_RNDN);
  t.angle_d = mpfr_get_d(s.angle, MPFR_RNDN);
  // hi = RN(V); V - hi is exact at this precision (it needs at most P - 52
  // bits), so lo = RN(V - hi) and |V - hi - lo| <= 2^-106 |hi|, which the
  // per-element bound covers.
  const auto split = [&](mpfr_srcptr v, FastCoef* c) {
    const double hi = mpfr_get_d(v, MPFR_RNDN);
    if (mpfr_zero_p(v)) return make_coef(hi, 0.0, true, c);  // hi keeps V's signed zero
    if (mpfr_sub_d(s.rest, v, hi, MPFR_RNDN) != 0) return false;  // cannot happen; be safe
    return make_coef(hi, mpfr_get_d(s.rest, MPFR_RNDN), false, c);
  };
  const bool ok_c = split(s.mc, &t.mc);
  const bool ok_s = split(s.ms, &t.ms);
  t.rad_c = t.rad_s = 0;
  t.ok = ok_c && ok_s;
  t.exact = t.ok && mpfr_zero_p(s.ms) && is_zero(t.mc.lo);
  ++stats_.trig_fallbacks;
  return t;
}

FastTrig FastReference::fast_trig(std::int64_t position, int pair) {
  const FastValue& w = w_[pair];
  const FastValue& m = m_;
  FastTrig t{};
  // m's sign must be certain (it is > 0 for every valid config).
  if (!(std::fabs(m.hi) > m.rad)) return mpfr_trig(position, pair);
  const bool w_zero = is_zero(w.hi) && is_zero(w.lo) && is_zero(w.rad);
  if (position == 0 || w_zero) {
    // RN_P(p w) = +-0 exactly: MPFR signs a product like IEEE (w's sign xor
    // p's, an integer 0 counting as positive), so sin = the same signed
    // zero, cos = 1, C = m exactly, S = m * (+-0).
    if (!w_zero && !(std::fabs(w.hi) > w.rad)) return mpfr_trig(position, pair);
    const bool neg = std::signbit(w.hi) != (position < 0);
    t.angle_d = t.sin_d = neg ? -0.0 : 0.0;
    t.cos_d = 1.0;
    const double s0 = (neg != std::signbit(m.hi)) ? -0.0 : 0.0;
    t.ok = make_coef(m.hi, m.lo, false, &t.mc) && make_coef(s0, 0.0, true, &t.ms);
    if (!t.ok) return mpfr_trig(position, pair);
    t.rad_c = m.rad;
    t.rad_s = 0;
    t.exact = is_zero(m.rad) && is_zero(m.lo);
    return t;
  }
  if (std::llabs(position) > kMaxFastPosition) return mpfr_trig(position, pair);
  const double p = static_cast<double>(position);  // exact
  DD a;
  double rad_a = 0;
  if (is_zero(w.rad) && is_zero(w.lo)) {
    // w a double (explicit frequencies): p w is exact as TwoProd's pair and
    // in MPFR (at most 106 bits), so RN(p w) is TwoProd's hi, ties
    // included; there is no radius.
    eft::two_prod(w.hi, p, a.hi, a.lo);
    if (!(std::fabs(a.hi) <= kMaxFastAngle && std::fabs(a.hi) >= 0x1p-900)) return mpfr_trig(position, pair);
    t.angle_d = a.hi;
  } else {
    a = eft::mul(DD{w.hi, w.lo}, p);
    // The angle's distance to the MPFR path's RN_P(p w) and to the exact p w.
    rad_a = (std::fabs(p) * w.rad + kAngleRel * std::fabs(a.hi)) * kSlack;
    if (!(std::fabs(a.hi) <= kMaxFastAngle) || !rounded(a, rad_a, &t.angle_d)) return mpfr_trig(position, pair);
  }
  const SinCos sc = sincos_dd(a);
  // cos and sin are 1-Lipschitz: the angle's radius adds as it is; the MPFR
  // path rounds cos and sin once more (2^-134 of them).
  const double rad_cos = (sc.err_c + rad_a + 0x1p-134 * std::fabs(sc.c.hi) * 2) * kSlack;
  const double rad_sin = (sc.err_s + rad_a + 0x1p-134 * std::fabs(sc.s.hi) * 2) * kSlack;
  if (!rounded(sc.c, rad_cos, &t.cos_d) || !rounded(sc.s, rad_sin, &t.sin_d)) return mpfr_trig(position, pair);
  const DD mdd{m.hi, m.lo};
  const DD c = eft::mul(mdd, sc.c), s = eft::mul(mdd, sc.s);
  // |C - m' c'| <= |m| rad + (|c| + rad) rad_m, plus the product's own
  // rounding and the MPFR path's (kCoefRel).
  t.rad_c = (std::fabs(m.hi) * rad_cos + (std::fabs(sc.c.hi) + rad_cos) * m.rad + kCoefRel * std::fabs(c.hi)) * kSlack;
  t.rad_s = (std::fabs(m.hi) * rad_sin + (std::fabs(sc.s.hi) + rad_sin) * m.rad + kCoefRel * std::fabs(s.hi)) * kSlack;
  t.ok = make_coef(c.hi, c.lo, false, &t.mc) && make_coef(s.hi, s.lo, false, &t.ms);
  if (!t.ok) return mpfr_trig(position, pair);
  t.exact = false;
  return t;
}

const FastTrigRow& FastReference::trig(std::int64_t position) {
  auto it = cache_.find(position);
  if (it != cache_.end()) return it->second;
  FastTrigRow row;
  row.position = position;
  const int pairs = shape_.rotary_dim / 2;
  row.pair.resize(pairs);
  for (int i = 0; i < pairs; ++i) row.pair[i] = fast_trig(position, i);
  stats_.trig_entries += static_cast<std::uint64_t>(pairs);
  return cache_.emplace(position, std::move(row)).first->second;
}

}  // namespace ropecheck::ref
