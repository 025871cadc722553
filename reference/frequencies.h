// SPDX-License-Identifier: MIT
// Inverse frequencies w_i and the attention factor m of every scheme, in
// high precision. One function per formula, HF transformers semantics
// (modeling_rope_utils.py); the formulas are restated in
// docs/FREQUENCY_SCHEMES.md with their sources.
#ifndef ROPECHECK_REFERENCE_FREQUENCIES_H_
#define ROPECHECK_REFERENCE_FREQUENCIES_H_

#include <algorithm>
#include <vector>

#include <boost/math/constants/constants.hpp>

#include "reference/freq_spec.h"
#include "reference/real.h"

namespace ropecheck::ref {

template <class R>
struct Frequencies {
  std::vector<R> inv_freq;  // rotary_dim/2 entries
  R attention_factor;       // m, multiplies cos and sin
};

// YaRN correction range (low, high) after truncation and clamping.
template <class R>
struct YarnRange {
  R low, high;
  R low_raw, high_raw;  // before floor/ceil and clamping: the cliff detector uses them
};

// 2 pi in R: Boost's constant for Boost's number types (correctly rounded
// pi, doubled exactly); bounded_real.h specialises it for its own type.
template <class R>
R two_pi_of() {
  return 2 * boost::math::constants::pi<R>();
}

// b^(-2i/d): the default inverse frequency of pair i.
template <class R>
R default_inv_freq(const R& base, int i, int d) {
  return pow(base, R(-2 * i) / R(d));
}

// g(s, k) = 0.1 k ln s + 1 for s > 1, else 1 (YaRN's get_mscale).
template <class R>
R yarn_get_mscale(const R& s, const R& k) {
  if (s <= 1) return R(1);
  return R(1) / R(10) * k * log(s) + R(1);
}

// d * ln(L / (2 pi r)) / (2 ln b): the pair index whose wavelength makes r
// rotations over L positions.
template <class R>
R yarn_correction_dim(const R& rotations, int d, const R& base, std::int64_t L) {
  const R two_pi = two_pi_of<R>();
  return R(d) * log(R(L) / (rotations * two_pi)) / (2 * log(base));
}

template <class R>
YarnRange<R> yarn_correction_range(const FreqSpec& f, int d) {
  const R base(f.base);
  YarnRange<R> r;
  r.low_raw = yarn_correction_dim(R(f.beta_fast), d, base, f.original_max_position);
  r.high_raw = yarn_correction_dim(R(f.beta_slow), d, base, f.original_max_position);
  R low = r.low_raw, high = r.high_raw;
  if (f.truncate) {
    low = floor(low);
    high = ceil(high);
  }
  r.low = low < 0 ? R(0) : low;
  r.high = high > R(d - 1) ? R(d - 1) : high;
  return r;
}

// YaRN's ramp: clamp((i - low) / (high - low), 0, 1), with HF's +0.001 when
// low == high to avoid a division by zero.
template <class R>
R yarn_ramp(int i, const YarnRange<R>& r) {
  R high = r.high;
  if (high == r.low) high += R(1) / 1000;
  R t = (R(i) - r.low) / (high - r.low);
  if (t < 0) return R(0);
  if (t > 1) return R(1);
  return t;
}

template <class R>
R yarn_attention_factor(const FreqSpec& f) {
  if (f.attention_factor) return R(*f.attention_factor);
  const R s(f.factor);
  if (f.mscale > 0.0 && f.mscale_all_dim > 0.0)
    return yarn_get_mscale(s, R(f.mscale)) / yarn_get_mscale(s, R(f.mscale_all_dim));
  return yarn_get_mscale(s, R(1));
}

template <class R>
R longrope_attention_factor(const FreqSpec& f) {
  if (f.attention_factor) return R(*f.attention_factor);
  const R s(f.factor);
  if (s <= 1) return R(1);
  return sqrt(R(1) + log(s) / log(R(f.original_max_position)));
}

// Base after NTK-aware (static) scaling: b * s^(d/(d-2)).
template <class R>
R ntk_base(const FreqSpec& f, int d) {
  return R(f.base) * pow(R(f.factor), R(d) / R(d - 2));
}

// Base after HF dynamic NTK: n = max(seq_len, L),
// b * ((s n / L) - (s - 1))^(d/(d-2)).
template <class R>
R dynamic_ntk_base(const FreqSpec& f, int d) {
  const std::int64_t n = std::max(f.seq_len, f.original_max_position);
  const R s(f.factor);
  const R q = s * R(n) / R(f.original_max_position) - (s - 1);
  return R(f.base) * pow(q, R(d) / R(d - 2));
}

// Llama 3.1 band rule applied to a default frequency w.
template <class R>
R llama3_scale(const R& w, const FreqSpec& f) {
  const R two_pi = two_pi_of<R>();
  const R L(f.original_max_position);
  const R s(f.factor), lf(f.low_freq_factor), hf(f.high_freq_factor);
  const R wavelen = two_pi / w;
  if (wavelen < L / hf) return w;      // high-frequency band: unchanged
  if (wavelen > L / lf) return w / s;  // low-frequency band: interpolated
  // Equal factors (Llama 4 Scout's 1 and 1): no blend band; a pair at exactly
  // wavelength L / lf (where HF's smoothing divides 0 by 0) is interpolated,
  // t = 0 as the numerator says.
  if (!(f.high_freq_factor > f.low_freq_factor)) return w / s;
  const R t = (L / wavelen - lf) / (hf - lf);
  return (1 - t) * w / s + t * w;
}

template <class R>
Frequencies<R> compute_frequencies(const FreqSpec& f, int rotary_dim) {
  validate(f, HeadShape{rotary_dim, rotary_dim});
  const int d = rotary_dim;
  const int pairs = d / 2;
  Frequencies<R> out;
  out.inv_freq.resize(pairs);
  out.attention_factor = f.attention_factor ? R(*f.attention_factor) : R(1);
  R base(f.base);
  switch (f.scheme) {
    case ROPECHECK_SCHEME_NTK_AWARE:
      base = ntk_base<R>(f, d);
      break;
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      base = dynamic_ntk_base<R>(f, d);
      break;
    default:
      break;
  }
  switch (f.scheme) {
    case ROPECHECK_SCHEME_DEFAULT:
    case ROPECHECK_SCHEME_NTK_AWARE:
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      for (int i = 0; i < pairs; ++i) out.inv_freq[i] = default_inv_freq(base, i, d);
      break;
    case ROPECHECK_SCHEME_LINEAR:
      for (int i = 0; i < pairs; ++i) out.inv_freq[i] = default_inv_freq(base, i, d) / R(f.factor);
      break;
    case ROPECHECK_SCHEME_YARN: {
      const YarnRange<R> range = yarn_correction_range<R>(f, d);
      for (int i = 0; i < pairs; ++i) {
        const R extrapolated = default_inv_freq(base, i, d);
        const R interpolated = extrapolated / R(f.factor);
        const R ramp = yarn_ramp(i, range);
        out.inv_freq[i] = interpolated * ramp + extrapolated * (1 - ramp);
      }
      out.attention_factor = yarn_attention_factor<R>(f);
      break;
    }
    case ROPECHECK_SCHEME_LLAMA3:
      for (int i = 0; i < pairs; ++i) out.inv_freq[i] = llama3_scale(default_inv_freq(base, i, d), f);
      break;
    case ROPECHECK_SCHEME_LONGROPE: {
      const bool long_ctx = f.seq_len > f.original_max_position;
      const std::vector<double>& ext = long_ctx ? f.long_factor : f.short_factor;
      for (int i = 0; i < pairs; ++i)
        out.inv_freq[i] = R(1) / (R(ext[i]) * pow(base, R(2 * i) / R(d)));
      out.attention_factor = longrope_attention_factor<R>(f);
      break;
    }
    case ROPECHECK_SCHEME_EXPLICIT:
      for (int i = 0; i < pairs; ++i) out.inv_freq[i] = R(f.inv_freq[i]);
      break;
    default:
      break;
  }
  return out;
}

extern template Frequencies<Real> compute_frequencies<Real>(const FreqSpec&, int);
extern template Frequencies<RealHigh> compute_frequencies<RealHigh>(const FreqSpec&, int);
extern template Frequencies<RealAlt> compute_frequencies<RealAlt>(const FreqSpec&, int);

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_FREQUENCIES_H_
