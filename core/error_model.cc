#include "core/error_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ropecheck/dtype.h"
#include "ropecheck/numbers.h"
#include "reference/rounding.h"

namespace ropecheck {
namespace {

// YaRN's correction dimension d ln(L / (2 pi r)) / (2 ln b), in double: the
// pair index whose wavelength makes r rotations over L positions.
double yarn_corr(const ref::FreqSpec& s, int d, double rotations) {
  return d * std::log(static_cast<double>(s.original_max_position) / (rotations * kTwoPi)) / (2.0 * std::log(s.base));
}

// Unit roundoff 2^-p of a dtype (half an ulp at 1).
double unit_roundoff(std::uint32_t dtype) {
  return std::ldexp(1.0, -dtype_format(static_cast<ropecheck_dtype_t>(dtype)).precision);
}

// E1 for the default formula 1 / b^(2i/d), in units of u: the exponent 2i/d
// rounds (relative u, amplified by ln b), b itself may carry rel_b units
// (a scaled base), pow is within 1 ulp (2u), the reciprocal rounds once, and
// one spare unit for the rounding of b to the freq dtype.
double default_units(int i, int d, double base, double rel_b_units) {
  const double e = 2.0 * i / d;
  return e * (std::log(base) + 1.0 + rel_b_units) + 4.0;
}

// Half an ulp of dtype t at |x|, rounded up to a representable double (at
// the bottom of fp64's subnormal range half an ulp is below 2^-1074).
double half_ulp_up(double x, ropecheck_dtype_t t) {
  return std::max(0.5 * ref::ulp_of(x, t), std::numeric_limits<double>::denorm_min());
}

}  // namespace

std::string ErrorModel::check_policy(const ropecheck_policy_t& p) {
  if (p.struct_size < sizeof(ropecheck_policy_t))
    return "policy.struct_size: must be >= " + std::to_string(sizeof(ropecheck_policy_t)) + " (got " +
           std::to_string(p.struct_size) + ")";
  if (p.freq_dtype != ROPECHECK_DTYPE_F32 && p.freq_dtype != ROPECHECK_DTYPE_F64)
    return "policy.freq_dtype: must be f32 or f64 (frequencies in bf16/fp16 are a known bug class)";
  if (p.angle_mode > ROPECHECK_ANGLE_F64) return "policy.angle_mode: unknown value";
  if (p.sincos > ROPECHECK_SINCOS_FAST) return "policy.sincos: unknown value";
  if (p.sincos == ROPECHECK_SINCOS_FAST &&
      !(std::isfinite(p.sincos_max_abs_error) && p.sincos_max_abs_error > 0 &&
        p.sincos_max_abs_error < 0.01))
    return "policy.sincos_max_abs_error: must be in (0, 0.01) for a fast sincos";
  if (p.math_dtype != ROPECHECK_DTYPE_F32 && p.math_dtype != ROPECHECK_DTYPE_F64)
    return "policy.math_dtype: must be f32 or f64";
  if (p.cache_dtype >= ROPECHECK_DTYPE_COUNT) return "policy.cache_dtype: unknown value";
  return {};
}

bool ErrorModel::yarn_near_cliff(const ref::FreqSpec& s, int d) {
  if (s.scheme != ROPECHECK_SCHEME_YARN || !s.truncate) return false;
  // Relative distance 1e-4 is ~800 fp32 ulps: far beyond any evaluation
  // error of corr() in fp32, and rare enough not to thin the grid.
  for (double r : {s.beta_fast, s.beta_slow}) {
    const double c = yarn_corr(s, d, r);
    if (std::fabs(c - std::nearbyint(c)) <= 1e-4 * std::max(1.0, std::fabs(c))) return true;
  }
  return false;
}

ErrorModel::ErrorModel(const ropecheck_policy_t& policy, const ref::FreqSpec& s,
                       ref::HeadShape shape, ropecheck_dtype_t storage, double m)
    : policy_(policy), storage_(storage), m_(m) {
  u_freq_ = unit_roundoff(policy.freq_dtype);
  u_math_ = unit_roundoff(policy.math_dtype);
  const bool angle64 = policy.angle_mode == ROPECHECK_ANGLE_F64;
  const double u_trig = angle64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  // E3: sin/cos of the kernel's own angle. libm is within 1 ulp; values lie
  // in [-1, 1] where one ulp is at most 2 u of the evaluation precision.
  sincos_abs_ = policy.sincos == ROPECHECK_SINCOS_FAST ? policy.sincos_max_abs_error : 2.0 * u_trig;
  // E4: rounding of m*cos, m*sin to the cache dtype when it is coarser than
  // the precision sin/cos were evaluated in.
  const double u_cache = unit_roundoff(policy.cache_dtype);
  cache_abs_ = u_cache > u_trig ? u_cache : 0.0;
  // E5: the attention factor, computed by the kernel from the scheme
  // (log, multiply, add, divide, sqrt: 8 roundings), or rounded once.
  const bool derived_m = !s.attention_factor && (s.scheme == ROPECHECK_SCHEME_YARN ||
                                                 s.scheme == ROPECHECK_SCHEME_LONGROPE);
  m_rel_ = derived_m ? 8.0 * u_freq_ : (s.attention_factor ? u_freq_ : 0.0);
  // Half the subnormal quantum, rounded up to a double: for fp64 math it is
  // 2^-1075, which a double cannot hold (it would round to 0).
  underflow_abs_ = half_ulp_up(0.0, static_cast<ropecheck_dtype_t>(policy.math_dtype));

  // E1 per pair, in units of u_freq.
  const int d = shape.rotary_dim;
  const int pairs = d / 2;
  freq_rel_.assign(pairs, 0.0);
  for (int i = 0; i < pairs; ++i) {
    double c = 0;
    switch (s.scheme) {
      case ROPECHECK_SCHEME_DEFAULT:
        c = default_units(i, d, s.base, 0);
        break;
      case ROPECHECK_SCHEME_LINEAR:
        c = default_units(i, d, s.base, 0) + 1;
        break;
      case ROPECHECK_SCHEME_NTK_AWARE: {
        // b' = b s^(d/(d-2)): exponent, pow, product.
        const double ex = static_cast<double>(d) / (d - 2);
        const double rel_b = std::fabs(std::log(s.factor)) * ex + 4;
        c = default_units(i, d, s.base * std::pow(s.factor, ex), rel_b);
        break;
      }
      case ROPECHECK_SCHEME_DYNAMIC_NTK: {
        const double n = static_cast<double>(std::max(s.seq_len, s.original_max_position));
        const double L = static_cast<double>(s.original_max_position);
        const double q = s.factor * n / L - (s.factor - 1);
        const double ex = static_cast<double>(d) / (d - 2);
        // s n / L carries 2 roundings, the subtraction one more, relative to
        // s n / L; the cancellation amplifies them by (s n / L) / q.
        const double rel_q = 3.0 * (s.factor * n / L) / q + 1;
        const double rel_b = ex * (rel_q + std::fabs(std::log(q))) + 4;
        c = default_units(i, d, s.base * std::pow(q, ex), rel_b);
        break;
      }
      case ROPECHECK_SCHEME_YARN: {
        const double cdef = default_units(i, d, s.base, 0) + 1;
        double ramp_units = 3;  // (i - low) / (high - low), evaluated in the freq dtype
        if (!s.truncate) {
          // corr() = d ln(L / (2 pi r)) / (2 ln b): ~8 roundings relative to
          // its value plus the absolute error of ln() near 1.
          const double lo = yarn_corr(s, d, s.beta_fast), hi = yarn_corr(s, d, s.beta_slow);
          const double scale = d / (2.0 * std::log(s.base));
          const double dlo = 8 * std::fabs(lo) + 3 * scale;
          const double dhi = 8 * std::fabs(hi) + 3 * scale;
          const double span = std::max(std::min(hi, d - 1.0) - std::max(lo, 0.0), 1e-3);
          ramp_units += (2 * dlo + dhi) / span;
        }
        // w = w/s * r + w * (1 - r): a ramp error dr moves w by (1 - 1/s) w dr,
        // which is (s - 1) dr relative to the smallest result w/s.
        c = std::fabs(s.factor - 1) * ramp_units + cdef + 4;
        break;
      }
      case ROPECHECK_SCHEME_LLAMA3: {
        const double cdef = default_units(i, d, s.base, 0);
        const double w = std::pow(s.base, -2.0 * i / d);
        const double wavelen = kTwoPi / w;
        const double L = static_cast<double>(s.original_max_position);
        const bool medium = wavelen >= (L / s.high_freq_factor) * (1 - 1e-6) &&
                            wavelen <= (L / s.low_freq_factor) * (1 + 1e-6);
        if (medium) {
          // t = (L / wavelen - lf) / (hf - lf): L / wavelen <= hf here, so
          // dt <= hf (cdef + 3) u / (hf - lf); w' moves by (s - 1) dt rel.
          const double dt = s.high_freq_factor * (cdef + 3) /
                            (s.high_freq_factor - s.low_freq_factor);
          c = std::fabs(s.factor - 1) * dt + cdef + 5;
        } else {
          c = cdef + 1;
        }
        break;
      }
      case ROPECHECK_SCHEME_LONGROPE:
        c = default_units(i, d, s.base, 0) + 3;  // factor rounding, product, reciprocal
        break;
      case ROPECHECK_SCHEME_EXPLICIT:
        c = 1;  // the given double rounded to the freq dtype
        break;
      default:
        break;
    }
    freq_rel_[i] = c * u_freq_;
  }
}

double ErrorModel::angle_error(const ElementTerms& t) const {
  const double a = t.abs_angle;
  const double ew = freq_rel_[t.pair];
  if (policy_.angle_mode == ROPECHECK_ANGLE_F64) {
    // Product in double, and the double p itself is exact below 2^53.
    const double u = std::ldexp(1.0, -53);
    const double pos_round = std::fabs(static_cast<double>(t.position)) > 0x1p53 ? u : 0.0;
    return a * (ew + u + pos_round);
  }
  // fl32(fl32(p) * w32): p rounds to fp32 above 2^24, the product once.
  const double u = std::ldexp(1.0, -24);
  const double pos_round = std::fabs(static_cast<double>(t.position)) > 0x1p24 ? u : 0.0;
  return a * (ew + u + pos_round) * (1 + 4 * u);
}

ErrorModel::Terms ErrorModel::terms(const ElementTerms& t) const {
  Terms r{};
  const double da = angle_error(t);
  const double xy = std::fabs(t.x) + std::fabs(t.y);
  // E2: a computed angle a + da rotates the exact output by da:
  // |v(a+da) - v(a)| <= |partner| |da| + |v| da^2 / 2 for every da,
  // and never more than the distance between two points on the circle.
  r.angle = std::min(std::fabs(t.partner) * da + std::fabs(t.value) * da * da / 2,
                     2 * m_ * std::hypot(t.x, t.y) * (1 + 4 * u_math_));
  r.sincos = m_ * xy * sincos_abs_;       // E3
  r.cache = m_ * xy * cache_abs_;         // E4
  r.attention = std::fabs(t.value) * m_rel_;  // E5
  // E6: x c - y s in the math dtype with c, s already scaled by m: two
  // products, a sum, and the scaling, each one rounding (gamma_4 covers FMA).
  const double g4 = 4 * u_math_ / (1 - 4 * u_math_);
  r.arithmetic = g4 * m_ * (t.abs_products + xy * (sincos_abs_ + cache_abs_));
  // E6b: below the smallest normal a rounding error is absolute (gradual
  // underflow): fl(a*b) = ab(1+d) + e with |e| <= half the subnormal quantum.
  r.underflow = 4 * underflow_abs_;
  // E7: rounding the result to the storage dtype (a correct kernel is off by
  // half an ulp even with exact arithmetic).
  // The judge knows the exact value only rounded to a double (t.value), one
  // more half ulp of fp64 between it and the truth.
  const double pre = r.angle + r.sincos + r.cache + r.attention + r.arithmetic + r.underflow;
  r.storage = half_ulp_up(std::fabs(t.value) + pre, storage_) + half_ulp_up(t.value, ROPECHECK_DTYPE_F64);
  return r;
}

double ErrorModel::budget(const ElementTerms& t) const { return terms(t).total(); }

double ErrorModel::trig_error(const ElementTerms& t) const {
  return std::min(angle_error(t), 2.0) + sincos_abs_ + cache_abs_ + 4 * u_math_;
}

double ErrorModel::overflow_free_limit() const {
  const double max_math = max_finite(static_cast<ropecheck_dtype_t>(policy_.math_dtype));
  return max_math / (std::sqrt(2.0) * std::max(m_, 1.0) * (1 + 8 * u_math_));
}

double ErrorModel::pair_budget_excluding_angle(const ElementTerms& t) const {
  const double xy = std::fabs(t.x) + std::fabs(t.y);
  const double r = m_ * std::hypot(t.x, t.y);  // norm of the exact pair
  const double g4 = 4 * u_math_ / (1 - 4 * u_math_);
  const double per_element = m_ * xy * (sincos_abs_ + cache_abs_)       // E3, E4
                             + r * m_rel_                               // E5
                             + g4 * m_ * xy * (1 + sincos_abs_ + cache_abs_)  // E6
                             + 4 * underflow_abs_;                      // E6b
  const double storage = half_ulp_up(r + per_element, storage_) + half_ulp_up(r, ROPECHECK_DTYPE_F64);  // E7
  return std::sqrt(2.0) * (per_element + storage);
}

double ErrorModel::pair_budget(const ElementTerms& t) const {
  const double r = m_ * std::hypot(t.x, t.y);
  return std::min(r * angle_error(t), 2 * r) + pair_budget_excluding_angle(t);
}

std::string ErrorModel::explain(const ElementTerms& t) const {
  const Terms r = terms(t);
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "budget %.3g = angle %.3g (|da| %.3g at |p w| %.6g) + sincos %.3g + cache %.3g + "
                "attention %.3g + arithmetic %.3g + underflow %.3g + storage %.3g; x=%a y=%a",
                r.total(), r.angle, angle_error(t), t.abs_angle, r.sincos, r.cache, r.attention,
                r.arithmetic, r.underflow, r.storage, t.x, t.y);
  return buf;
}

}  // namespace ropecheck
