// SPDX-License-Identifier: MIT
// The fast exact reference: the definitions of reference/fast_rotation.h.
#include "reference/fast_rotation.h"

#include <cmath>
#include <limits>

#include "reference/checked_rounding.h"
#include "reference/fast_frequencies.h"
#include "reference/fast_internal.h"
#include "reference/error_free.h"
#include "reference/rounding.h"
#include "ropecheck/float_compare.h"

// The error-free transformations need every product and sum rounded on its
// own. Clang honours this pragma; GCC ignores it, so the build compiles this
// file with -ffp-contract=off (GCC's default is "fast" when the target has
// FMA, e.g. -march=x86-64-v3 or aarch64).
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace ropecheck::ref {

static_assert(sizeof(long) >= sizeof(std::int64_t), "mpfr_mul_si must take every int64 position");

FastStats& FastStats::operator+=(const FastStats& o) {
  elements += o.elements;
  fallbacks += o.fallbacks;
  trig_entries += o.trig_entries;
  trig_fallbacks += o.trig_fallbacks;
  freq_fallbacks += o.freq_fallbacks;
  return *this;
}

namespace {

using eft::halves;
using eft::Halves;
using eft::two_prod;
using eft::two_sum;

// Input range over which every TwoProd below is exact and no product or sum
// underflows or overflows (docs/REFERENCE.md, "Range conditions"). A pair
// with an input below kTinyIn (fp64 subnormals, say) is scaled by 2^600
// first, when neither input exceeds kMaxScaled: exact, it moves the
// computation into the range, and the roundings are done against the
// format's grid scaled alike.
constexpr double kTinyIn = 0x1p-700;
constexpr double kHugeIn = 0x1p900;
constexpr double kMaxScaled = 0x1p300;
constexpr int kScaleExp = 600;
constexpr double kScaleUp = 0x1p600;
constexpr double kScaleDown = 0x1p-600;
// E = kRelBound (|p| + |q|) + the coefficients' radii times the inputs:
// 9.01 * 2^-106 for the double-double arithmetic plus 2.01 * 2^-134 for the
// MPFR path's P-bit arithmetic (or the exact value), < 2^-102.8, rounded up
// to 2^-100 (docs/REFERENCE.md, "The per-element bound").
constexpr double kRelBound = 0x1p-100;
// The radius terms are computed in double: 2^-50 relative covers their
// roundings.
constexpr double kRadSlack = 1.0 + 0x1p-50;

bool is_zero(double v) { return exactly_equal(v, 0.0); }

// A FastCoef with its sign flipped (exact).
FastCoef negated(const FastCoef& c) { return {-c.hi, -c.lo, -c.hh, -c.hl}; }

// One output element r = x*A + y*B, A and B double-double coefficients
// (C or +-S, signs applied), x and y inputs in the range (scaled if need
// be) with their halves. Returns v = vh + vl (vh = RN(v)) and |p| + |q|,
// what the bound scales with.
struct Dot {
  double vh, vl, mag;
};
Dot dot2(double x, Halves xs, double y, Halves ys, const FastCoef& a, const FastCoef& b) {
  double p, ep, q, eq, s, es;
  two_prod(x, xs, a.hi, {a.hh, a.hl}, p, ep);
  two_prod(y, ys, b.hi, {b.hh, b.hl}, q, eq);
  two_sum(p, q, s, es);
  const double lo = ((ep + eq) + (x * a.lo + y * b.lo)) + es;
  Dot d;
  two_sum(s, lo, d.vh, d.vl);
  d.mag = std::fabs(p) + std::fabs(q);
  return d;
}

}  // namespace

FastReference::FastReference(const FreqSpec& spec, HeadShape shape) : spec_(spec), shape_(shape) {
  validate(spec_, shape_);
  // w_i and m depend on the spec and the rotary dim alone: computed once
  // per thread for each (fast_frequencies.h).
  if (const auto f = cached_fast_frequencies(spec_, shape_.rotary_dim); f->ok) {
    m_ = f->m;
    m_d_ = f->m_d;
    w_ = f->w;
    w_d_ = f->w_d;
    return;
  }
  // The bounds left a branch of a formula, or RN(w_i) or RN(m), open: the
  // MPFR path's own frequencies, held to within 2^-106.
  ++stats_.freq_fallbacks;
  const Frequencies<Real>& f = exact_freqs();
  m_d_ = f.attention_factor.convert_to<double>();
  m_ = fast_value(f.attention_factor);
  w_d_.clear();
  w_.clear();
  for (const Real& w : f.inv_freq) {
    w_d_.push_back(w.convert_to<double>());
    w_.push_back(fast_value(w));
  }
}

FastReference::~FastReference() = default;

const ExactFrequencies& FastReference::exact_freqs() {
  if (!exact_) {
    exact_ = cached_exact_frequencies(spec_, shape_.rotary_dim);
    // Real's precision (134 bits for MpfrReal<128>: Boost rounds 40 decimal
    // digits up), read from a value so it is the one the MPFR path uses.
    mp_ = std::make_unique<MpfrScratch>(mpfr_get_prec(exact_->attention_factor.backend().data()));
  }
  return *exact_;
}

FastPairResult FastReference::try_rotate_pair(double x, double y, const FastTrig& t, bool inverse,
                                              ropecheck_dtype_t dtype) const {
  FastPairResult r;
  if (!t.ok) return r;
  const double ax = std::fabs(x), ay = std::fabs(y);
  if (!(ax <= kHugeIn && ay <= kHugeIn)) return r;  // huge, infinite or NaN: MPFR
  double xe = x, ye = y;
  const bool scale = (ax < kTinyIn && !is_zero(ax)) || (ay < kTinyIn && !is_zero(ay));
  if (scale) {
    if (!(ax <= kMaxScaled && ay <= kMaxScaled)) return r;
    xe = x * kScaleUp;  // exact; zeros keep their sign
    ye = y * kScaleUp;
  }
  const Halves xs = halves(xe), ys = halves(ye);

  // S' = +-S by direction; channel a = x C + y (-S'), channel b = x S' + y C.
  const FastCoef sp = inverse ? negated(t.ms) : t.ms;
  const FastCoef nsp = negated(sp);
  const FastCoef* const as[2] = {&t.mc, &sp};
  const FastCoef* const bs[2] = {&nsp, &t.mc};
  // The coefficients' own radii, channel by channel.
  const double rad[2] = {(std::fabs(xe) * t.rad_c + std::fabs(ye) * t.rad_s) * kRadSlack,
                         (std::fabs(xe) * t.rad_s + std::fabs(ye) * t.rad_c) * kRadSlack};
  const GridFormat& fd = grid_format(dtype);

  // Both elements' arithmetic first: two independent dependency chains the
  // processor can overlap, before the branchy decisions.
  const Dot dots[2] = {dot2(xe, xs, ye, ys, *as[0], *bs[0]), dot2(xe, xs, ye, ys, *as[1], *bs[1])};
  for (int k = 0; k < 2; ++k) {
    const FastCoef& a = *as[k];
    const FastCoef& b = *bs[k];
    const Dot& d = dots[k];
    if (is_zero(d.vh)) {
      // Exactly zero. Decided only when both products are exact zeros (a
      // zero input, or sin of a zero angle; a coefficient's hi is 0 only
      // when the coefficient is exactly 0): then MPFR, like IEEE, gives
      // RN(t1 - t2) = RN(t1 + (-t2)) = -0 only when both addends are -0.
      const bool z1 = is_zero(x) || is_zero(a.hi);
      const bool z2 = is_zero(y) || is_zero(b.hi);
      if (!(z1 && z2)) continue;
      const bool neg1 = std::signbit(x) != std::signbit(a.hi);
      const bool neg2 = std::signbit(y) != std::signbit(b.hi);
      r.value[k] = r.rounded[k] = (neg1 && neg2) ? -0.0 : 0.0;
      r.decided[k] = true;
      continue;
    }
    if (!(std::fabs(d.vh) >= kMinCheckedValue)) continue;
    // Zero angle with C a double: v = x C (or y C) exactly, held exactly as
    // vh + vl (TwoProd, then sums with zeros), and the P-bit path holds the
    // same exact 106-bit product: nothing to bound.
    const double err = t.exact ? 0.0 : kRelBound * d.mag + rad[k];
    if (scale) {
      // Rare (fp64 subnormal inputs): the general rounding on scaled grids.
      double v, rd;
      if (!round_checked(d.vh, d.vl, err, scaled_grid(grid_format(ROPECHECK_DTYPE_F64), kScaleExp), &v)) continue;
      if (!round_checked(d.vh, d.vl, err, scaled_grid(fd, kScaleExp), &rd)) continue;
      r.value[k] = v * kScaleDown;  // exact: a multiple of the scaled grid's quantum
      r.rounded[k] = rd * kScaleDown;
      r.decided[k] = true;
      continue;
    }
    // Exact v: vh is RN(v) itself (TwoSum rounds to nearest even).
    if (!t.exact && !value_checked(d.vh, d.vl, err)) continue;
    r.value[k] = d.vh;
    if (dtype == ROPECHECK_DTYPE_F64) {
      r.rounded[k] = d.vh;
    } else if (!round_checked(d.vh, d.vl, err, fd, &r.rounded[k])) {
      continue;
    }
    r.decided[k] = true;
  }
  return r;
}

void FastReference::mpfr_pair(double x, double y, std::int64_t position, int pair, bool inverse,
                              ropecheck_dtype_t dtype, FastPairResult* r) {
  // rotation.cc computes a = Real(p) * w, cos(a), sin(a), c = m cos,
  // s = +-(m sin), then x c - y s and x s + y c, each operation rounded to
  // P bits; the same operations here on preallocated mpfr_t. sin_cos
  // returns the same correctly rounded values as cos and sin; Real(x) is
  // mpfr_set_d, exact; Boost's unary minus is mpfr_neg.
  const Frequencies<Real>& f = exact_freqs();
  MpfrScratch& s = *mp_;
  const mpfr_srcptr m = f.attention_factor.backend().data();
  mpfr_mul_si(s.angle, f.inv_freq[pair].backend().data(), static_cast<long>(position), MPFR_RNDN);
  mpfr_sin_cos(s.s, s.c, s.angle, MPFR_RNDN);
  mpfr_mul(s.mc, m, s.c, MPFR_RNDN);
  mpfr_mul(s.ms, m, s.s, MPFR_RNDN);
  if (inverse) mpfr_neg(s.ms, s.ms, MPFR_RNDN);
  mpfr_set_d(s.in_a, x, MPFR_RNDN);
  mpfr_set_d(s.in_b, y, MPFR_RNDN);
  for (int k = 0; k < 2; ++k) {
    if (r->decided[k]) continue;
    mpfr_ptr out = s.out.backend().data();
    if (k == 0) {
      mpfr_mul(s.t1, s.in_a, s.mc, MPFR_RNDN);
      mpfr_mul(s.t2, s.in_b, s.ms, MPFR_RNDN);
      mpfr_sub(out, s.t1, s.t2, MPFR_RNDN);
    } else {
      mpfr_mul(s.t1, s.in_a, s.ms, MPFR_RNDN);
      mpfr_mul(s.t2, s.in_b, s.mc, MPFR_RNDN);
      mpfr_add(out, s.t1, s.t2, MPFR_RNDN);
    }
    r->value[k] = mpfr_get_d(out, MPFR_RNDN);  // what convert_to<double> calls
    r->rounded[k] = round_to_dtype(s.out, dtype);
    r->decided[k] = true;
  }
}

namespace {

FastPairResult nan_pair(ropecheck_dtype_t dtype) {
  // A NaN operand makes every MPFR operation of mpfr_pair give NaN (the
  // products, the sum, whatever the angle), so both outputs are NaN there
  // whatever the frequencies: its very values, from the same two calls
  // (mpfr_get_d, round_to_dtype), without computing the frequencies in
  // MPFR first (most of the differential fuzzer's reference time, its
  // inputs' raw bits holding NaNs).
  static const double value = [] {
    Real n;
    mpfr_set_nan(n.backend().data());
    return mpfr_get_d(n.backend().data(), MPFR_RNDN);
  }();
  static const Real nan = std::numeric_limits<double>::quiet_NaN();
  FastPairResult r;
  for (int k = 0; k < 2; ++k) {
    r.value[k] = value;
    r.rounded[k] = round_to_dtype(nan, dtype);
    r.decided[k] = true;
  }
  return r;
}

}  // namespace

FastPairResult FastReference::rotate_pair(double x, double y, const FastTrigRow& row, int pair, bool inverse,
                                          ropecheck_dtype_t dtype) {
  stats_.elements += 2;
  if (std::isnan(x) || std::isnan(y)) return nan_pair(dtype);
  FastPairResult r = try_rotate_pair(x, y, row.pair[pair], inverse, dtype);
  const int undecided = !r.decided[0] + !r.decided[1];
  if (undecided) {
    stats_.fallbacks += static_cast<std::uint64_t>(undecided);
    mpfr_pair(x, y, row.position, pair, inverse, dtype, &r);
  }
  return r;
}

}  // namespace ropecheck::ref
