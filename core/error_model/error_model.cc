// SPDX-License-Identifier: MIT
// The per-element budget of a kernel's rotation (E2-E8), term by term, from its declared policy and the case.
#include "core/error_model/error_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "reference/rounding.h"
#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"

namespace ropecheck {
namespace {

// Half an ulp of dtype t at |x|, rounded up to a representable double (at
// the bottom of fp64's subnormal range half an ulp is below 2^-1074). By the
// one-rounding lemma (docs/ERROR_MODEL.md) it bounds the error of rounding
// any real of magnitude <= |x| to t, gradual underflow included.
[[gnu::always_inline]] inline double half_ulp_up(double x, const DtypeFormat& f) {
  return std::max(0.5 * ref::ulp_of(x, f), std::numeric_limits<double>::denorm_min());
}
double half_ulp_up(double x, ropecheck_dtype_t t) { return half_ulp_up(x, dtype_format(t)); }

constexpr DtypeFormat kF32Format = dtype_format(ROPECHECK_DTYPE_F32);
constexpr DtypeFormat kF64Format = dtype_format(ROPECHECK_DTYPE_F64);

// True when every value of dtype a is a value of dtype b.
bool holds_every_value(ropecheck_dtype_t a, ropecheck_dtype_t b) {
  if (a == b) return true;
  if (b == ROPECHECK_DTYPE_F64) return true;
  return b == ROPECHECK_DTYPE_F32 && (a == ROPECHECK_DTYPE_F16 || a == ROPECHECK_DTYPE_BF16);
}

ropecheck_dtype_t resolve(std::uint32_t policy_dtype, ropecheck_dtype_t storage) {
  return policy_dtype == ROPECHECK_DTYPE_OF_STORAGE ? storage : static_cast<ropecheck_dtype_t>(policy_dtype);
}

constexpr const char* kTermNames[kBudgetTermCount] = {"angle", "angle(capped)", "trig", "prods",
                                                      "final", "store",         "judge"};

}  // namespace

namespace {
std::string fmt3(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}
}  // namespace

const char* budget_term_name(int term) { return term >= 0 && term < kBudgetTermCount ? kTermNames[term] : "?"; }

ErrorModel::ErrorModel(const Policy& policy, const ModelCase& c)
    : policy_(policy),
      math_(resolve(policy.base.math_dtype, c.storage)),
      cos_sin_(resolve(policy.base.cache_dtype, c.storage)),
      // sin/cos are evaluated in double for an fp64 angle with libm, or with
      // a fast approximation declaring less error than fp32 can promise (half
      // an fp32 ulp in [0.5, 1), 2^-25: no fp32 evaluation stays within it,
      // e.g. impls/kernel_support/cache_builder.cc's angle addition in
      // double); other fast approximations and the fp32 angle modes work in fp32.
      trig_(policy.base.angle_mode == ROPECHECK_ANGLE_F64 &&
                    (policy.base.sincos == ROPECHECK_SINCOS_LIBM || policy.base.sincos_max_abs_error < 0x1p-25)
                ? ROPECHECK_DTYPE_F64
                : ROPECHECK_DTYPE_F32),
      caller_cache_(c.caller_cache),
      m_(std::fabs(c.attention_factor)),
      math_format_(dtype_format(math_)),
      storage_format_(dtype_format(c.storage)),
      math_narrow_(math_ == ROPECHECK_DTYPE_BF16 || math_ == ROPECHECK_DTYPE_F16),
      store_rounds_(!holds_every_value(math_, c.storage)),
      fma_rotation_(policy.ext.rotation_form == ROPECHECK_ROTATION_FMA),
      flush_(policy.ext2.subnormals == ROPECHECK_SUBNORMALS_FLUSHED),
      flush_math_(std::ldexp(1.0, math_format_.emin)),
      flush_store_(std::ldexp(1.0, storage_format_.emin)) {
  // A group without pairs (an axis given none) has no frequencies to bound.
  if (c.group_rotary_dims.empty()) angles_.emplace_back(policy, c.spec, c.shape.rotary_dim);
  for (const int d : c.group_rotary_dims) angles_.emplace_back(policy, c.spec, std::max(d, 2));
  // E5: the attention factor, computed by the kernel from the scheme (log,
  // multiply, add, divide, sqrt: 8 roundings in the freq dtype), or an
  // explicit one rounded once; m = 1 with neither is exact.
  // A factor formed in a finer dtype than sin/cos are multiplied in (fp64
  // frequencies, a fast fp32 sin/cos) is rounded to that precision first.
  const double u_f = unit_roundoff(policy.base.freq_dtype), u_t = unit_roundoff(trig_);
  const bool derived_m = !c.spec.attention_factor &&
                         (c.spec.scheme == ROPECHECK_SCHEME_YARN || c.spec.scheme == ROPECHECK_SCHEME_LONGROPE);
  m_rel_ = derived_m ? 8.0 * u_f : (c.spec.attention_factor ? u_f : 0.0);
  if (m_rel_ > 0 && u_t > u_f) m_rel_ += u_t * (1 + m_rel_);
  // A caller's cache carries the exact m, folded in before its one rounding.
  if (caller_cache_) m_rel_ = 0;
  unit_trig_ = trig_bound(1.0);
}

double ErrorModel::math_rounding(double z) const {
  // A bf16/fp16 operation is usually an fp32 operation rounded to the narrow
  // type (PyTorch, CUDA). Rounding twice is innocuous for +, -, * when
  // 24 >= 2p + 2 and nothing underflows (Figueroa, "When is double rounding
  // innocuous?", 1995), but fp32 underflows on products of bf16 subnormals:
  // |fl_M(fl_32(z)) - z| <= h_M(z + h_32(z)) + h_32(z) covers both.
  double h;
  if (math_narrow_) {
    const double h32 = half_ulp_up(z, kF32Format);
    h = half_ulp_up(z + h32, math_format_) + h32;
  } else {
    h = half_ulp_up(z, math_format_);
  }
  // Flushed: a result below the smallest normal number tau is written as
  // zero, off by at most min(z, tau); one at or above it rounds as before.
  return flush_ ? std::max(h, std::min(z, flush_math_)) : h;
}

double ErrorModel::store_rounding(double z) const {
  if (!store_rounds_) return 0.0;
  const double h = half_ulp_up(z, storage_format_);
  return flush_ ? std::max(h, std::min(z, flush_store_)) : h;
}

ElementTerms ErrorModel::with_flushed_inputs(const ElementTerms& t) const {
  // DAZ: an input below the math dtype's smallest normal number reads as
  // zero, an input error of |x| (bf16 subnormals are fp32's; fp16's are
  // normal fp32 numbers, flushed only by fp16 arithmetic itself).
  ElementTerms f = t;
  if (std::fabs(t.x) < flush_math_) f.input_error_x += std::fabs(t.x);
  if (std::fabs(t.y) < flush_math_) f.input_error_y += std::fabs(t.y);
  return f;
}

double ErrorModel::phase_error(double abs_angle, double a0) const {
  // E1/E2 + a fast sin/cos beyond its declared range: sin/cos of an
  // argument off by at most slope |argument|, |argument| <= |a| + A0.
  const ropecheck_policy_ext_t& e = policy_.ext;
  if (policy_.base.sincos != ROPECHECK_SINCOS_FAST || !(e.sincos_phase_error_slope > 0)) return 0;
  const double arg = abs_angle + a0;
  const bool beyond = !(e.sincos_abs_error_range > 0) || arg > e.sincos_abs_error_range;
  return beyond ? e.sincos_phase_error_slope * arg : 0.0;
}

double ErrorModel::angle_error(const ElementTerms& t) const {
  // A caller's cache is built from the exact angles: the kernel forms none.
  if (caller_cache_) return 0;
  const double a0 = angles_.at(static_cast<std::size_t>(t.freq_group)).bound(t.abs_angle, t.position, t.pair);
  return a0 + phase_error(t.abs_angle, a0);
}

ErrorModel::TrigBound ErrorModel::trig_bound(double cm) const {
  if (caller_cache_) {
    // E4c: the caller's cache holds RN_C(m cos a), one rounding of the exact
    // value to its dtype C; a kernel that rounds it again to the cos/sin
    // dtype its policy declares (one that cannot hold C) adds that rounding.
    const double mc = m_ * cm;
    double delta = half_ulp_up(mc, *caller_cache_);
    if (!holds_every_value(*caller_cache_, cos_sin_)) delta += half_ulp_up(mc + delta, cos_sin_);
    return {delta, mc + delta};
  }
  // E3: the evaluation, k ulps of the exact value in the trig precision for
  // libm (an ulp at Cm >= |cos a~| bounds it), the declared abs error for a
  // fast approximation.
  const double k = policy_.ext.sincos_max_ulp > 0 ? policy_.ext.sincos_max_ulp : 1.0;
  const double e3 = policy_.base.sincos == ROPECHECK_SINCOS_FAST ? policy_.base.sincos_max_abs_error
                                                                 : k * ref::ulp_of(cm, trig_);
  // E5: times the kernel's m~ = m (1 + e), |e| <= m_rel, rounded in the trig
  // precision: |C2 - m cos a~| <= m~ e3 + e m Cm + h_T(m~ (Cm + e3)).
  double delta = e3, c2 = cm + e3;
  if (m_rel_ > 0 || !exactly_equal(m_, 1.0)) {
    const double mk = m_ * (1 + m_rel_);
    const double r = half_ulp_up(mk * (cm + e3), trig_);
    delta = mk * e3 + m_rel_ * m_ * cm + r;
    c2 = mk * (cm + e3) + r;
  }
  // E4: rounded to the cos/sin dtype when it cannot hold the trig precision.
  if (!holds_every_value(trig_, cos_sin_)) delta += half_ulp_up(c2, cos_sin_);
  return {delta, m_ * cm + delta};
}

ErrorModel::AngleShared ErrorModel::angle_shared(const ElementTerms& t) const {
  AngleShared a;
  a.angle_error = angle_error(t);
  // E3-E5, per value: the kernel multiplies by cos/sin of its own angle a~,
  // so |cos a~| <= min(1, |cos a| + A).
  a.cos = trig_bound(std::min(1.0, std::fabs(t.cos_a) + a.angle_error));
  a.sin = trig_bound(std::min(1.0, std::fabs(t.sin_a) + a.angle_error));
  return a;
}

ErrorModel::PairShared ErrorModel::pair_shared(const ElementTerms& t, const AngleShared& a) const {
  PairShared s;
  s.angle_error = a.angle_error;
  s.input_norm = std::hypot(std::fabs(t.x) + t.input_error_x, std::fabs(t.y) + t.input_error_y);
  s.cos = a.cos;
  s.sin = a.sin;
  return s;
}

ErrorModel::PairShared ErrorModel::pair_shared(const ElementTerms& t) const { return pair_shared(t, angle_shared(t)); }

BudgetTerms ErrorModel::terms(const ElementTerms& t) const {
  if (flush_) {
    const ElementTerms f = with_flushed_inputs(t);
    return terms(f, pair_shared(f));
  }
  return terms(t, pair_shared(t));
}

BudgetTerms ErrorModel::terms(const ElementTerms& t, const PairShared& s) const {
  BudgetTerms r;
  const double A = s.angle_error;
  // E2: a computed angle a + da rotates the exact output by da:
  // |v(a+da) - v(a)| <= |partner| |da| + |v| da^2 / 2 for every da, and
  // never more than the distance between two points on the circle.
  // The kernel's inputs lie within input_error_x/y of x and y (a fused
  // qk-norm; 0 otherwise): the rotation's own terms are taken at those
  // larger magnitudes.
  const double av = std::fabs(t.value), ax = std::fabs(t.x) + t.input_error_x, ay = std::fabs(t.y) + t.input_error_y;
  // (The kernel's exact-angle outputs are off by at most m (dx + dy) too.)
  const double moved = m_ * (t.input_error_x + t.input_error_y);
  const double rotated = (std::fabs(t.partner) + moved) * A + (av + moved) * A * A / 2, cap = 2 * m_ * s.input_norm;
  r.angle_capped = cap < rotated;
  r.angle = std::min(rotated, cap);
  const TrigBound& b1 = t.side == 0 ? s.cos : s.sin;  // multiplies x
  const TrigBound& b2 = t.side == 0 ? s.sin : s.cos;  // multiplies y
  r.trig = ax * b1.delta + ay * b2.delta;
  // E6: the products' roundings in the math dtype (an FMA rounds only one).
  const double p1 = math_rounding(ax * b1.kmax), p2 = math_rounding(ay * b2.kmax);
  r.prods = fma_rotation_ ? std::max(p1, p2) : p1 + p2;
  // E6': the sum (or the fused operation) rounded in the math dtype; E7: the
  // store, no rounding when every math value is a storage value (for math in
  // the storage dtype the last rounding is the store).
  // E10 carried: x~ c~ - y~ s~ differs from x c~ - y s~ by at most
  // |x~ - x| |c~| + |y~ - y| |s~|.
  r.input = t.input_error_x * b1.kmax + t.input_error_y * b2.kmax;
  const double pre = r.angle + r.trig + r.prods + r.input;
  r.fin = math_rounding(av + pre);
  r.store = store_rounding(av + pre + r.fin);
  // E8: the judge knows the exact value only rounded to a double.
  r.judge = half_ulp_up(t.value, kF64Format);
  return r;
}

double ErrorModel::budget_floor(double abs_value) const {
  // terms(): fin = math_rounding(|value| + pre) and store =
  // store_rounding(|value| + pre + fin), pre >= 0, both non-decreasing in
  // their argument (half_ulp_up is; so are the narrow and flushed forms).
  return math_rounding(abs_value) + store_rounding(abs_value);
}

double ErrorModel::trig_error(const ElementTerms& t) const {
  return std::min(angle_error(t), 2.0) + unit_trig_.delta / std::max(m_, 1e-300) + 4 * unit_roundoff(math_);
}

double ErrorModel::overflow_free_limit() const {
  const double max_math = max_finite(math_);
  return max_math / (std::sqrt(2.0) * std::max(m_, 1.0) * (1 + 8 * unit_roundoff(math_)));
}

double ErrorModel::pair_budget_excluding_angle(const ElementTerms& t) const {
  return pair_budget_excluding_angle(t, std::hypot(t.x, t.y));
}

double ErrorModel::pair_budget_excluding_angle(const ElementTerms& t, double norm) const {
  // The terms of E3..E8 for an element of magnitude m r whatever the angle
  // (|cos a~|, |sin a~| <= 1), times sqrt(2) for the two elements; a flushed
  // input (DAZ) moves the pair by at most (dx + dy) times the kernel's largest
  // |cos|, |sin|.
  double moved = 0;
  if (flush_) {
    const ElementTerms f = with_flushed_inputs(t);
    moved = (f.input_error_x - t.input_error_x + f.input_error_y - t.input_error_y) * unit_trig_.kmax;
  }
  const double ax = std::fabs(t.x), ay = std::fabs(t.y);
  const double r = m_ * norm;
  const TrigBound& b = unit_trig_;
  const double trig = (ax + ay) * b.delta;
  const double p1 = math_rounding(ax * b.kmax), p2 = math_rounding(ay * b.kmax);
  const double prods = fma_rotation_ ? std::max(p1, p2) : p1 + p2;
  const double fin = math_rounding(r + trig + prods);
  const double store = store_rounding(r + trig + prods + fin);
  return std::sqrt(2.0) * (trig + prods + fin + store + half_ulp_up(r, kF64Format)) + moved;
}

double ErrorModel::pair_budget(const ElementTerms& t) const {
  const double norm = std::hypot(t.x, t.y), r = m_ * norm;
  return std::min(r * angle_error(t), 2 * r) + pair_budget_excluding_angle(t, norm);
}

ErrorModel::PairBudgets ErrorModel::pair_budgets(const std::array<ElementTerms, 2>& t) const {
  return pair_budgets(t, angle_shared(t[0]));
}

ErrorModel::PairBudgets ErrorModel::pair_budgets(const std::array<ElementTerms, 2>& t, const AngleShared& a) const {
  if (flush_ && (std::fabs(t[0].x) < flush_math_ || std::fabs(t[0].y) < flush_math_)) {
    // The inputs a DAZ operation reads as zero, as input errors of the pair.
    const std::array<ElementTerms, 2> f{with_flushed_inputs(t[0]), with_flushed_inputs(t[1])};
    PairBudgets b;
    const PairShared s = pair_shared(f[0], a);
    b.terms = {terms(f[0], s), terms(f[1], s)};
    b.norm = std::hypot(t[0].x, t[0].y);
    b.pair_no_angle = pair_budget_excluding_angle(t[0], b.norm);
    b.pair = std::min(m_ * b.norm * a.angle_error, 2 * m_ * b.norm) + b.pair_no_angle;
    return b;
  }
  PairBudgets b;
  const PairShared s = pair_shared(t[0], a);
  b.terms = {terms(t[0], s), terms(t[1], s)};
  // Without a fused norm's input errors |(x, y)| is the norm the terms used.
  b.norm = exactly_equal(t[0].input_error_x, 0.0) && exactly_equal(t[0].input_error_y, 0.0)
               ? s.input_norm
               : std::hypot(t[0].x, t[0].y);
  b.pair_no_angle = pair_budget_excluding_angle(t[0], b.norm);
  const double r = m_ * b.norm;
  b.pair = std::min(r * s.angle_error, 2 * r) + b.pair_no_angle;
  return b;
}

std::string ErrorModel::explain(const ElementTerms& t) const {
  const BudgetTerms r = terms(t);
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "budget %.3g = angle %.3g%s (|da| %.3g at |p w| %.6g) + trig %.3g + products %.3g + final %.3g + "
                "store %.3g + judge %.3g%s; x=%a y=%a",
                r.total(), r.angle, r.angle_capped ? " (capped)" : "", angle_error(t), t.abs_angle, r.trig,
                r.prods, r.fin, r.store, r.judge, r.input > 0 ? (" + norm " + fmt3(r.input)).c_str() : "", t.x, t.y);
  return buf;
}

}  // namespace ropecheck
