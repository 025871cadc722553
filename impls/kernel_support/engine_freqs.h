// SPDX-License-Identifier: MIT
// Frequencies as an inference engine computes them: the scheme's scalar
// parameters (bases, correction range, attention factor) in double, as
// Python floats in HF transformers, and the per-pair vectors in T (float
// for an fp32 policy, double for fp64). Never calls the reference: the
// suite verifies these formulas, it does not reuse them.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_ENGINE_FREQS_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_ENGINE_FREQS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ropecheck/float_compare.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/numbers.h"

namespace ropecheck::impl {

template <class T>
struct EngineFreqs {
  std::vector<T> inv_freq;
  T attention_factor = T(1);
};

namespace engine_detail {

inline double yarn_mscale(double s, double k) { return s <= 1.0 ? 1.0 : 0.1 * k * std::log(s) + 1.0; }

inline double yarn_corr_dim(double rotations, int d, double base, std::int64_t L) {
  return d * std::log(static_cast<double>(L) / (rotations * kTwoPi)) / (2.0 * std::log(base));
}

}  // namespace engine_detail

// The base the scheme's powers are taken of, in double (HF's Python floats):
// NTK-aware's b s^(d/(d-2)), dynamic NTK's b q^(d/(d-2)), else b.
inline double engine_base(const ropecheck_freq_spec_t& s, int d) {
  if (s.scheme == ROPECHECK_SCHEME_NTK_AWARE) return s.base * std::pow(s.factor, static_cast<double>(d) / (d - 2));
  if (s.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK) {
    const double n = static_cast<double>(std::max(s.seq_len, s.original_max_position));
    const double L = static_cast<double>(s.original_max_position);
    return s.base * std::pow(s.factor * n / L - (s.factor - 1.0), static_cast<double>(d) / (d - 2));
  }
  return s.base;
}

template <class T>
EngineFreqs<T> engine_frequencies(const ropecheck_freq_spec_t& s, int d) {
  using std::pow;
  const int pairs = d / 2;
  EngineFreqs<T> out;
  out.inv_freq.resize(pairs);
  const double base = engine_base(s, d);
  // 1 / base^(2i/d), the tensor expression every engine writes.
  auto default_freq = [&](int i) { return T(1) / pow(T(base), T(2 * i) / T(d)); };

  switch (s.scheme) {
    case ROPECHECK_SCHEME_DEFAULT:
    case ROPECHECK_SCHEME_NTK_AWARE:
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      for (int i = 0; i < pairs; ++i) out.inv_freq[i] = default_freq(i);
      break;
    case ROPECHECK_SCHEME_LINEAR:
      for (int i = 0; i < pairs; ++i) out.inv_freq[i] = default_freq(i) / T(s.factor);
      break;
    case ROPECHECK_SCHEME_YARN: {
      double low = engine_detail::yarn_corr_dim(s.beta_fast, d, s.base, s.original_max_position);
      double high = engine_detail::yarn_corr_dim(s.beta_slow, d, s.base, s.original_max_position);
      if (s.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
      }
      low = std::max(low, 0.0);
      high = std::min(high, static_cast<double>(d - 1));
      if (exactly_equal(low, high)) high += 0.001;  // HF linear_ramp_factor
      for (int i = 0; i < pairs; ++i) {
        T ramp = (T(i) - T(low)) / T(high - low);
        ramp = std::clamp(ramp, T(0), T(1));
        const T extrapolated = default_freq(i);
        const T interpolated = extrapolated / T(s.factor);
        out.inv_freq[i] = interpolated * ramp + extrapolated * (T(1) - ramp);
      }
      if (!s.has_attention_factor) {
        const double m = (s.mscale > 0.0 && s.mscale_all_dim > 0.0)
                             ? engine_detail::yarn_mscale(s.factor, s.mscale) /
                                   engine_detail::yarn_mscale(s.factor, s.mscale_all_dim)
                             : engine_detail::yarn_mscale(s.factor, 1.0);
        out.attention_factor = T(m);
      }
      break;
    }
    case ROPECHECK_SCHEME_LLAMA3: {
      const T L = T(s.original_max_position);
      const T low_wavelen = L / T(s.low_freq_factor);
      const T high_wavelen = L / T(s.high_freq_factor);
      for (int i = 0; i < pairs; ++i) {
        const T w = default_freq(i);
        const T wavelen = T(kTwoPi) / w;
        T r = w;
        if (wavelen > low_wavelen) {
          r = w / T(s.factor);
        } else if (!(wavelen < high_wavelen) && !(s.high_freq_factor > s.low_freq_factor)) {
          r = w / T(s.factor);  // equal factors (Llama 4 Scout): no blend band
        } else if (!(wavelen < high_wavelen)) {
          const T t = (L / wavelen - T(s.low_freq_factor)) /
                      (T(s.high_freq_factor) - T(s.low_freq_factor));
          r = (T(1) - t) * w / T(s.factor) + t * w;
        }
        out.inv_freq[i] = r;
      }
      break;
    }
    case ROPECHECK_SCHEME_LONGROPE: {
      const double* ext = s.seq_len > s.original_max_position ? s.long_factor : s.short_factor;
      for (int i = 0; i < pairs; ++i)
        out.inv_freq[i] = T(1) / (T(ext[i]) * pow(T(base), T(2 * i) / T(d)));
      if (!s.has_attention_factor) {
        out.attention_factor =
            s.factor <= 1.0
                ? T(1)
                : T(std::sqrt(1.0 + std::log(s.factor) /
                                        std::log(static_cast<double>(s.original_max_position))));
      }
      break;
    }
    case ROPECHECK_SCHEME_EXPLICIT:
      for (int i = 0; i < pairs; ++i) out.inv_freq[i] = T(s.inv_freq[i]);
      break;
    default:
      break;
  }
  if (s.has_attention_factor) out.attention_factor = T(s.attention_factor);
  return out;
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_ENGINE_FREQS_H_
