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

// E1 for the default formula 1 / b^(2i/d), in units of u: the exponent 2i/d
// rounds (relative u, amplified by ln b through b^e), b itself carries
// rel_b_units plus its own rounding to the freq dtype (the "+ 1"), pow is
// within k_pow ulps (2 k_pow u), the reciprocal rounds once, and one spare
// unit (it also absorbs the /pi of an angle in half-turns, sincospif).
double default_units(int i, int d, double base, double rel_b_units, double k_pow) {
  const double e = 2.0 * i / d;
  return e * (std::log(base) + 1.0 + rel_b_units) + 2.0 * k_pow + 2.0;
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
    : policy_(policy), scheme_(static_cast<int>(s.scheme)), rotary_dim_(d), base_(s.base) {
  const double u_f = unit_roundoff(policy.base.freq_dtype);
  const double k = declared_ulps(policy.ext.freq_pow_max_ulp);
  const int pairs = d / 2;
  freq_rel_.assign(static_cast<std::size_t>(pairs), 0.0);
  unit_freq_.assign(static_cast<std::size_t>(pairs), 0);
  for (int i = 0; i < pairs; ++i) {
    double c = 0;
    switch (s.scheme) {
      case ROPECHECK_SCHEME_DEFAULT:
        c = default_units(i, d, s.base, 0, k);
        break;
      case ROPECHECK_SCHEME_LINEAR:
        c = default_units(i, d, s.base, 0, k) + 2;  // s rounded to the freq dtype, then the division
        break;
      case ROPECHECK_SCHEME_NTK_AWARE: {
        // b' = b s^(d/(d-2)): the exponent, pow and the product.
        const double ex = static_cast<double>(d) / (d - 2);
        const double rel_b = std::fabs(std::log(s.factor)) * ex + 2 * k + 2;
        c = default_units(i, d, s.base * std::pow(s.factor, ex), rel_b, k);
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
        c = default_units(i, d, s.base * std::pow(q, ex), rel_b, k);
        break;
      }
      case ROPECHECK_SCHEME_YARN: {
        const double cdef = default_units(i, d, s.base, 0, k) + 1;
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
        const double cdef = default_units(i, d, s.base, 0, k);
        const double w = std::pow(s.base, -2.0 * i / d);
        const double wavelen = kTwoPi / w;
        const double L = static_cast<double>(s.original_max_position);
        const bool medium = wavelen >= (L / s.high_freq_factor) * (1 - 1e-6) &&
                            wavelen <= (L / s.low_freq_factor) * (1 + 1e-6);
        if (medium) {
          // t = (L / wavelen - lf) / (hf - lf): L / wavelen <= hf here, so
          // dt <= hf (cdef + 3) u / (hf - lf); w' moves by (s - 1) dt rel.
          // Equal factors (no band): a pair this close to the one edge may
          // land in either band, t anywhere in [0, 1] (1 / u_f units).
          const double dt = s.high_freq_factor > s.low_freq_factor
                                ? s.high_freq_factor * (cdef + 3) / (s.high_freq_factor - s.low_freq_factor)
                                : 1.0 / u_f;
          c = std::fabs(s.factor - 1) * dt + cdef + 5;
        } else {
          c = cdef + 1;
        }
        break;
      }
      case ROPECHECK_SCHEME_LONGROPE:
        c = default_units(i, d, s.base, 0, k) + 3;  // factor rounding, product, reciprocal
        break;
      case ROPECHECK_SCHEME_EXPLICIT:
        c = 1;  // the given double rounded to the freq dtype
        break;
      default:
        break;
    }
    // Pair 0 of a power formula: pow(x, +-0) = 1 exactly for every x (C99
    // F.9.4.4, IEEE 754 pow), 0 / d = 0 and 1 / 1 = 1, so w~_0 = w_0 = 1.
    const bool unit = i == 0 && (s.scheme == ROPECHECK_SCHEME_DEFAULT || s.scheme == ROPECHECK_SCHEME_NTK_AWARE ||
                                 s.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK);
    unit_freq_[static_cast<std::size_t>(i)] = unit;
    freq_rel_[static_cast<std::size_t>(i)] = unit ? 0.0 : c * u_f;
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
      // powf(fl(b), fl(-2/d)) with |ln(ts~/ts)| <= L1; then / fl(ff) (two
      // roundings) and * fl(1/fl(s)) (three). Each factor (1 + d), |d| <= u,
      // has |ln(1 + d)| <= lam: exact bookkeeping, not first order.
      const double u = u32, lam = -std::log1p(-u);
      const double k = declared_ulps(policy_.ext.freq_pow_max_ulp);
      const double L1 = (2.0 / rotary_dim_) * (std::log(base_) * u + (1 + u) * lam) - std::log1p(-2 * k * u);
      const int n = pair + (p32_exact ? 0 : 1) + (scheme_ == ROPECHECK_SCHEME_LINEAR ? 3 : 0) +
                    (scheme_ == ROPECHECK_SCHEME_LONGROPE ? 2 : 0);
      return a * std::expm1(pair * L1 + n * lam);
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
