// scalar_cached: vLLM/FlashInfer style. build_cache fills a
// [max_position, rotary_dim] fp32 table (m*cos then m*sin per row, computed
// in double); apply only looks rows up, and reports a position outside the
// table instead of reading past it.
#include <cmath>
#include <cstdint>

#include "../common/abi_check.h"
#include "../common/engine_freqs.h"
#include "../common/head_io.h"
#include "../common/impl_table.h"
#include "ropecheck/layout.h"
#include "scalar_impls.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps = scalar_caps(kBothLayouts, ROPECHECK_CAP_COS_SIN_CACHE);

// Largest table we agree to build: 2^24 rows x 4096 channels would be 256 GiB.
constexpr std::int64_t kMaxCacheElements = std::int64_t{1} << 31;

ropecheck_status_t build_cache(void*, const ropecheck_freq_spec_t* freq, std::int32_t rotary_dim,
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

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const int pairs = p->rotary_dim / 2;
  const float sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  const float* cache = static_cast<const float*>(p->cos_sin_cache);
  for_each_head(*p, [&](std::int64_t t) { return position_at(p, t); }, [&](const HeadRef& h) {
    const float* row = cache + h.position * p->rotary_dim;
    for (int i = 0; i < pairs; ++i) {
      int ia, ib;
      pair_channels(p->layout, p->rotary_dim, i, &ia, &ib);
      const float c = row[i];
      const float s = sign * row[pairs + i];
      const float x = load_f32(h.in, h.offset + ia, p->dtype);
      const float y = load_f32(h.in, h.offset + ib, p->dtype);
      store_f32(h.out, h.offset + ia, p->dtype, x * c - y * s);
      store_f32(h.out, h.offset + ib, p->dtype, x * s + y * c);
    }
  });
  return ROPECHECK_OK;
}

}  // namespace

const ropecheck_impl_t* scalar_cached_impl() {
  static const ropecheck_impl_t impl{
      sizeof(ropecheck_impl_t), ROPECHECK_ABI_VERSION, "scalar_cached",
      "[max_pos, rotary_dim] fp32 cos|sin cache built in double; bounds-checked lookup", kCaps,
      policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32), nullptr, apply,
      build_cache, nullptr};
  return &impl;
}

}  // namespace ropecheck::impl
