// SPDX-License-Identifier: MIT
// E1 and the angle half of E2: how far a kernel's frequency and angle may be from the exact ones under its policy.
#include "core/error_model/angle_error.h"

#include <algorithm>
#include <cmath>

#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/numbers.h"

namespace ropecheck {
namespace {

// YaRN's correction dimension d ln(L / (2 pi r)) / (2 ln b), in double: the
// pair index whose wavelength makes r rotations over L positions.
double yarn_corr(const ref::FreqSpec& s, int d, double rotations) {
  return d * std::log(static_cast<double>(s.original_max_position) / (rotations * kTwoPi)) / (2.0 * std::log(s.base));
}

// A declared ulp count; 0 is the 1.0 meaning, 1 ulp.
double declared_ulps(double v) { return v > 0 ? v : 1.0; }

// E1 for the default formula 1 / b^(2i/d) in the declared form, in units of
// u (docs/ERROR_MODEL.md, E1 and "The frequency's form"). base carries
// rel_b_units of relative error before its own rounding to the freq dtype.
struct FormUnits {
  std::uint32_t form = ROPECHECK_FREQ_POWER;
  double k_pow = 1;       // pow / exp / log within this many ulps
  double slope_units = 0;  // EXP_LOG: the exp's growth per unit |argument|, in u

  double operator()(int i, int d, double base, double rel_b_units) const {
    const double e = 2.0 * i / d;
    switch (form) {
      case ROPECHECK_FREQ_EXP_LOG:
        // exp(-i fl(fl(ln b) / (d/2))): ln b off by (1 + r_b) u absolute (b's
        // error and rounding) and k ulps (2k u) relative, the division and
        // the product by i one rounding each: the argument e ln b is off by
        // e ((1 + r_b) + (2k + 2) ln b) u; exp adds 2k u and slope e ln b;
        // one spare unit for the products of these first-order terms.
        return e * (std::log(base) * (2.0 * k_pow + 2.0 + slope_units) + 1.0 + rel_b_units) + 2.0 * k_pow + 1.0;
      case ROPECHECK_FREQ_TABLE:
        // The exact frequency (or its reciprocal) rounded once, inverted at
        // most once, one spare unit (a table rounded from a double carries
        // that double's rounding too).
        return 3.0;
      default:
        // The exponent 2i/d rounds (relative u, amplified by ln b through
        // b^e), b itself carries rel_b_units plus its own rounding to the
        // freq dtype (the "+ 1"), pow is within k_pow ulps (2 k_pow u), the
        // reciprocal rounds once, and one spare unit (it also absorbs the /pi
        // of an angle in half-turns, sincospif).
        return e * (std::log(base) + 1.0 + rel_b_units) + 2.0 * k_pow + 2.0;
    }
  }
};

double yarn_ramp_units(const ref::FreqSpec& s, int d) {
  double units = 3;  // (i - low) / (high - low), 1 - r, and 1 - (1 - r), each rounded in the freq dtype
  if (!s.truncate) {
    // corr() = d ln(L / (2 pi r)) / (2 ln b): ~8 roundings relative to
    // its value plus the absolute error of ln() near 1.
    const double lo = yarn_corr(s, d, s.beta_fast), hi = yarn_corr(s, d, s.beta_slow);
    const double scale = d / (2.0 * std::log(s.base));
    const double dlo = 8 * std::fabs(lo) + 3 * scale;
    const double dhi = 8 * std::fabs(hi) + 3 * scale;
    const double span = std::max(std::min(hi, d - 1.0) - std::max(lo, 0.0), 1e-3);
    units += (2 * dlo + dhi) / span;
  }
  return units;
}

bool yarn_in_ramp(const ref::FreqSpec& s, int d, int pair) {
  if (!s.truncate) return true;  // the bounds are real numbers an evaluation may move: any pair
  // floor/ceil give integers every evaluation agrees on (yarn_near_cliff),
  // so pairs at or below low and at or above high have weights exactly 0, 1.
  const double lo = std::max(std::floor(yarn_corr(s, d, s.beta_fast)), 0.0);
  const double hi = std::min(std::ceil(yarn_corr(s, d, s.beta_slow)), d - 1.0);
  return pair > lo && pair < hi;
}

double llama3_ramp_units(const ref::FreqSpec& s, int d, int pair, const FormUnits& form_units, double u_f) {
  const double cdef = form_units(pair, d, s.base, 0);
  const double wavelen = kTwoPi / std::pow(s.base, -2.0 * pair / d);
  const double L = static_cast<double>(s.original_max_position);
  const bool medium = wavelen >= (L / s.high_freq_factor) * (1 - 1e-6) &&
                      wavelen <= (L / s.low_freq_factor) * (1 + 1e-6);
  if (!medium) return 0;
  // t = (L / wavelen - lf) / (hf - lf): L / wavelen <= hf here, so
  // dt <= hf (cdef + 3) u / (hf - lf); w' moves by (s - 1) dt rel.
  // Equal factors (no band): a pair this close to the one edge may
  // land in either band, t anywhere in [0, 1] (1 / u_f units).
  const double dt = s.high_freq_factor > s.low_freq_factor
                        ? s.high_freq_factor * (cdef + 3) / (s.high_freq_factor - s.low_freq_factor)
                        : 1.0 / u_f;
  return std::fabs(s.factor - 1) * dt + 5;
}

}  // namespace

double unit_roundoff(std::uint32_t dtype) {
  return std::ldexp(1.0, -dtype_format(static_cast<ropecheck_dtype_t>(dtype)).precision);
}

bool yarn_near_cliff(const ref::FreqSpec& s, int d) {
  if (s.scheme != ROPECHECK_SCHEME_YARN || !s.truncate) return false;
  // Relative distance 1e-4 is ~800 fp32 ulps: far beyond any evaluation
  // error of corr() in fp32, and rare enough not to thin the grid.
  for (double r : {s.beta_fast, s.beta_slow}) {
    const double c = yarn_corr(s, d, r);
    if (std::fabs(c - std::nearbyint(c)) <= 1e-4 * std::max(1.0, std::fabs(c))) return true;
  }
  return false;
}

AngleError::AngleError(const Policy& policy, const ref::FreqSpec& s, int d)
    : policy_(policy) {
  const double u_f = unit_roundoff(policy.base.freq_dtype);
  const double k = declared_ulps(policy.ext.freq_pow_max_ulp);
  const FormUnits default_units{policy.ext2.freq_form, k, policy.ext2.freq_exp_slope / u_f};
  const bool table = policy.ext2.freq_form == ROPECHECK_FREQ_TABLE;
  const int pairs = d / 2;
  freq_rel_.assign(static_cast<std::size_t>(pairs), 0.0);
  unit_freq_.assign(static_cast<std::size_t>(pairs), 0);
  for (int i = 0; i < pairs; ++i) {
    double c = 0;
    switch (s.scheme) {
      case ROPECHECK_SCHEME_DEFAULT:
        c = default_units(i, d, s.base, 0);
        break;
      case ROPECHECK_SCHEME_LINEAR:
        c = default_units(i, d, s.base, 0) + 2;  // s rounded to the freq dtype, then the division
        break;
      case ROPECHECK_SCHEME_NTK_AWARE: {
        // b' = b s^(d/(d-2)): the exponent, pow and the product.
        const double ex = static_cast<double>(d) / (d - 2);
        const double rel_b = std::fabs(std::log(s.factor)) * ex + 2 * k + 2;
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
        const double rel_b = ex * (rel_q + std::fabs(std::log(q))) + 2 * k + 2;
        c = default_units(i, d, s.base * std::pow(q, ex), rel_b);
        break;
      }
      case ROPECHECK_SCHEME_YARN: {
        const double cdef = default_units(i, d, s.base, 0) + 1;
        // w = w/s * r + w * (1 - r): a ramp error dr moves w by (1 - 1/s) w dr,
        // which is (s - 1) dr relative to the smallest result w/s.
        c = std::fabs(s.factor - 1) * yarn_ramp_units(s, d) + cdef + 4;
        break;
      }
      case ROPECHECK_SCHEME_LLAMA3: {
        const double cdef = default_units(i, d, s.base, 0);
        const double ramp = llama3_ramp_units(s, d, i, default_units, u_f);
        c = ramp > 0 ? ramp + cdef : cdef + 1;
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
    // A table holds the exact values: whatever the scheme's formula, its
    // rounding and at most one inversion (explicit frequencies included).
    if (table) c = default_units(i, d, s.base, 0);
    // Pair 0 of a power formula: pow(x, +-0) = 1 exactly for every x (C99
    // F.9.4.4, IEEE 754 pow), 0 / d = 0 and 1 / 1 = 1, so w~_0 = w_0 = 1; in
    // the exp-of-log form exp(+-0) = 1 (C99 F.9.3.1) after i = 0 makes the
    // argument 0; a table holds 1 itself, and 1 / 1 = 1.
    const bool unit = i == 0 && (s.scheme == ROPECHECK_SCHEME_DEFAULT || s.scheme == ROPECHECK_SCHEME_NTK_AWARE ||
                                 s.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK);
    unit_freq_[static_cast<std::size_t>(i)] = unit;
    freq_rel_[static_cast<std::size_t>(i)] = unit ? 0.0 : c * u_f;
  }
  if (policy.base.angle_mode == ROPECHECK_ANGLE_F32_RUNNING_PRODUCT) init_running_product(s, d, k);
}

void AngleError::init_running_product(const ref::FreqSpec& s, int d, double k) {
  // docs/ERROR_MODEL.md, "The running product, every scheme". Every bound is
  // on |ln(kernel / exact)|: a factor (1 + e), |e| <= n u, has
  // |ln(1 + e)| <= -ln(1 - n u), and the logs of a product add.
  const double u = 0x1p-24, lam = -std::log1p(-u);
  // The base theta_scale is formed from, and the units of relative error it
  // carries before its own fp32 rounding (E1's r_b: NTK's b s^(d/(d-2)),
  // dynamic NTK's b q^(d/(d-2))).
  double base = s.base, rel_b = 0;
  const double ex = static_cast<double>(d) / (d - 2);
  if (s.scheme == ROPECHECK_SCHEME_NTK_AWARE) {
    base = s.base * std::pow(s.factor, ex);
    rel_b = std::fabs(std::log(s.factor)) * ex + 2 * k + 2;
  } else if (s.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK) {
    const double n = static_cast<double>(std::max(s.seq_len, s.original_max_position));
    const double L = static_cast<double>(s.original_max_position);
    const double q = s.factor * n / L - (s.factor - 1);
    rel_b = ex * (3.0 * (s.factor * n / L) / q + 1 + std::fabs(std::log(q))) + 2 * k + 2;
    base = s.base * std::pow(q, ex);
  }
  const double lam_b = -std::log1p(-(1 + rel_b) * u);
  rp_l1_ = (2.0 / d) * (std::fabs(std::log(base)) * u + (1 + u) * lam_b) - std::log1p(-2 * k * u);
  const int pairs = d / 2;
  rp_extra_.assign(static_cast<std::size_t>(pairs), 0.0);
  rp_mix_.assign(static_cast<std::size_t>(pairs), 0.0);
  for (int i = 0; i < pairs; ++i) {
    double extra = 0, mix = 0;
    switch (s.scheme) {
      case ROPECHECK_SCHEME_LINEAR:  // fl(s), fl(1 / fl(s)), the product
        extra = 3 * lam;
        break;
      case ROPECHECK_SCHEME_LONGROPE:  // the factor rounded to fp32, the division
        extra = 2 * lam;
        break;
      case ROPECHECK_SCHEME_LLAMA3: {
        // theta / ff, ff = 1 / ((1 - t)/s + t) formed in fp32 from an fp32
        // per-pair frequency (llama.cpp's converter): E1's medium-band
        // amplification without the frequency's own error, which the
        // running product replaces; 1 unit (fl32(s)) in the other bands.
        // ff lies in [1, s] whatever t, so |ln(ff~/ff)| <= ln s (+ its roundings).
        const double ramp = llama3_ramp_units(s, d, i, FormUnits{ROPECHECK_FREQ_POWER, k, 0}, u);
        const double units = ramp > 0 ? ramp : 1;
        const double phi = units * u < 0.5 ? -std::log1p(-units * u) : HUGE_VAL;
        extra = lam + std::min(phi, std::log(s.factor) + 2 * lam);
        break;
      }
      case ROPECHECK_SCHEME_YARN:
        // theta_e = theta / 1, theta_i = fl(fl(1 / fl(s)) theta_e), then
        // fl(fl(theta_i w_I) + fl(theta_e w_E)): 5 roundings on a sum of two
        // same-signed terms. The weights w_I = 1 - w_E, w_E = 1 - ramp are
        // each within R u of exact (not complementary: each rounds on its
        // own), which moves the angle by |theta_e| R u (1/s + 1) <= (1 + s)
        // R u |mixed angle|; exact (0 or 1) outside the ramp.
        extra = 5 * lam;
        mix = yarn_in_ramp(s, d, i) ? (1 + s.factor) * yarn_ramp_units(s, d) * u : 0;
        break;
      default:  // default, NTK-aware, dynamic NTK: the loop alone
        break;
    }
    rp_extra_[static_cast<std::size_t>(i)] = extra;
    rp_mix_[static_cast<std::size_t>(i)] = mix;
  }
}

double AngleError::bound(double a, std::int64_t position, int pair) const {
  if (!(a > 0)) return 0;  // p = 0 or w = 0: every mode computes an exact 0
  const double u32 = 0x1p-24, u64 = 0x1p-53;
  const double p = static_cast<double>(position);
  const bool p32_exact = exactly_equal(static_cast<double>(static_cast<float>(p)), p);
  const auto i = static_cast<std::size_t>(pair);
  const bool unit = unit_freq_[i];
  switch (policy_.base.angle_mode) {
    case ROPECHECK_ANGLE_F64: {
      // fl64(p' w~), p' = p (exact below 2^53) or fl32(p) when declared.
      const bool p32 = policy_.ext.positions_f32 != 0;
      const double pos = p32 ? (p32_exact ? 0 : u32) : (std::fabs(p) > 0x1p53 ? u64 : 0);
      return a * (freq_rel_[i] + (unit ? 0 : u64) + pos) * (1 + 4 * (p32 ? u32 : u64));
    }
    case ROPECHECK_ANGLE_F32_RUNNING_PRODUCT: {
      // theta_i = fl(.. fl(fl32(p) ts~) .. ts~) (i roundings), ts~ =
      // powf(fl(b'), fl(-2/d)) with |ln(ts~/ts)| <= L1; then the scheme's
      // own steps (init_running_product). Each factor (1 + d), |d| <= u, has
      // |ln(1 + d)| <= lam: exact bookkeeping, not first order.
      const double lam = -std::log1p(-u32);
      const double log_err = pair * rp_l1_ + (pair + (p32_exact ? 0 : 1)) * lam + rp_extra_[i];
      return a * (std::expm1(log_err) + std::exp(log_err) * rp_mix_[i]);
    }
    default: {
      // fl32(fl32(p) w32): w rounds to fp32 when formed in fp64, the product
      // rounds unless w32 = 1, p rounds above 2^24.
      const double to_f32 = policy_.base.freq_dtype == ROPECHECK_DTYPE_F64 && !unit ? u32 : 0;
      return a * (freq_rel_[i] + to_f32 + (unit ? 0 : u32) + (p32_exact ? 0 : u32)) * (1 + 4 * u32);
    }
  }
}

}  // namespace ropecheck
