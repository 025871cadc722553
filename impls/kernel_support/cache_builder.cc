// SPDX-License-Identifier: MIT
// The definitions of impls/kernel_support/cache_builder.h.
#include "impls/kernel_support/cache_builder.h"

#include <cmath>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"

namespace ropecheck::impl {
namespace {

// Largest table we agree to build: 2^24 rows x 4096 channels would be 256 GiB.
constexpr std::int64_t kMaxCacheElements = std::int64_t{1} << 31;

// Rows p = h S + j, S a power of two near sqrt(rows). The angle p w is taken
// as A + B with A = fl(h (S w)) (S w exact) and B = fl(j w): its error is at
// most 2^-53 (|A| + |B|) = 2^-53 |p w|, the bound of the one product fl(p w)
// (angle mode f64). libm gives cos and sin at the S + H angles of each pair,
// within 1 ulp <= 2^-52 each (glibc manual, "Known Maximum Errors in Math
// Functions"), and one angle addition per entry in double gives the rest:
// each product within 2^-51 + 2^-53 of its exact factors' product, their
// difference rounded once more, so
//   |c~ - cos(A + B)| <= 2 (2^-51 + 2^-53) + 2^-53 = 2.75 * 2^-51 < 2^-49.5,
// the same for sin: kCacheSincosAbsError. An absolute bound (near a zero of
// cos it is no bound in ulps), declared as a fast sin/cos in double. The first
// S rows (h = 0: cos A = 1, sin A = 0 exactly) are libm's bit for bit. 7x
// faster than libm per entry: the cache kernels' builds were a fifth of the
// quick gate's CPU time.
void fill_by_angle_addition(const EngineFreqs<double>& f, int pairs, std::int64_t rows, float* out) {
  int lg = 0;
  while ((std::int64_t{1} << (2 * lg)) < rows) ++lg;
  const std::int64_t S = std::int64_t{1} << lg, H = (rows + S - 1) / S;
  const auto n = static_cast<std::size_t>(pairs);
  std::vector<double> lo_cos(static_cast<std::size_t>(S) * n), lo_sin(lo_cos.size());
  std::vector<double> hi_cos(static_cast<std::size_t>(H) * n), hi_sin(hi_cos.size());
  for (std::int64_t j = 0; j < S; ++j)
    for (std::size_t i = 0; i < n; ++i) {
      const double b = static_cast<double>(j) * f.inv_freq[i];
      lo_cos[static_cast<std::size_t>(j) * n + i] = std::cos(b);
      lo_sin[static_cast<std::size_t>(j) * n + i] = std::sin(b);
    }
  for (std::int64_t h = 0; h < H; ++h)
    for (std::size_t i = 0; i < n; ++i) {
      const double a = static_cast<double>(h) * (static_cast<double>(S) * f.inv_freq[i]);
      hi_cos[static_cast<std::size_t>(h) * n + i] = std::cos(a);
      hi_sin[static_cast<std::size_t>(h) * n + i] = std::sin(a);
    }
  const double m = f.attention_factor;
  for (std::int64_t p = 0; p < rows; ++p) {
    const std::size_t h = static_cast<std::size_t>(p / S) * n, j = static_cast<std::size_t>(p % S) * n;
    const double *hc = &hi_cos[h], *hs = &hi_sin[h], *lc = &lo_cos[j], *ls = &lo_sin[j];
    float* row = out + p * 2 * pairs;
    for (std::size_t i = 0; i < n; ++i) {
      row[i] = static_cast<float>(m * (hc[i] * lc[i] - hs[i] * ls[i]));
      row[n + i] = static_cast<float>(m * (hs[i] * lc[i] + hc[i] * ls[i]));
    }
  }
}

}  // namespace

ropecheck_status_t build_cos_sin_cache_f64(const ropecheck_freq_spec_t* freq, std::int32_t rotary_dim,
                               std::int64_t max_position, std::uint32_t cache_dtype, void* cache,
                               char* err, std::size_t n) {
  if (rotary_dim < 2 || rotary_dim % 2 != 0 || rotary_dim > 4096) {
    set_error(err, n, "rotary_dim: must be even and in [2, 4096] (got %d)", rotary_dim);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (max_position < 1 || max_position > kMaxCacheElements / rotary_dim) {
    set_error(err, n, "max_position: must be in [1, %lld] for rotary_dim %d (got %lld)",
              static_cast<long long>(kMaxCacheElements / rotary_dim), rotary_dim,
              static_cast<long long>(max_position));
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (cache_dtype != ROPECHECK_DTYPE_F32) {
    set_error(err, n, "cache_dtype: only f32 is supported (got %u)", cache_dtype);
    return ROPECHECK_UNSUPPORTED;
  }
  if (cache == nullptr) {
    set_error(err, n, "cache: must not be null");
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (auto s = check_freq_spec(freq, rotary_dim, err, n)) return s;
  const EngineFreqs<double> f = engine_frequencies<double>(*freq, rotary_dim);
  fill_by_angle_addition(f, rotary_dim / 2, max_position, static_cast<float*>(cache));
  return ROPECHECK_OK;
}

ropecheck_status_t build_cos_sin_cache_entry(void*, const ropecheck_freq_spec_t* freq, std::int32_t rotary_dim,
                                             std::int64_t max_position, std::uint32_t cache_dtype, void* cache,
                                             char* err, std::size_t n) {
  return build_cos_sin_cache_f64(freq, rotary_dim, max_position, cache_dtype, cache, err, n);
}

}  // namespace ropecheck::impl
