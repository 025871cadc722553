#include "impls/kernel_support/cache_builder.h"

#include <cmath>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"

namespace ropecheck::impl {
namespace {

// Largest table we agree to build: 2^24 rows x 4096 channels would be 256 GiB.
constexpr std::int64_t kMaxCacheElements = std::int64_t{1} << 31;

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
  const int pairs = rotary_dim / 2;
  float* out = static_cast<float*>(cache);
  for (std::int64_t p = 0; p < max_position; ++p) {
    float* row = out + p * rotary_dim;
    for (int i = 0; i < pairs; ++i) {
      const double a = static_cast<double>(p) * f.inv_freq[i];
      row[i] = static_cast<float>(f.attention_factor * std::cos(a));
      row[pairs + i] = static_cast<float>(f.attention_factor * std::sin(a));
    }
  }
  return ROPECHECK_OK;
}

ropecheck_status_t build_cos_sin_cache_entry(void*, const ropecheck_freq_spec_t* freq, std::int32_t rotary_dim,
                                             std::int64_t max_position, std::uint32_t cache_dtype, void* cache,
                                             char* err, std::size_t n) {
  return build_cos_sin_cache_f64(freq, rotary_dim, max_position, cache_dtype, cache, err, n);
}

}  // namespace ropecheck::impl
