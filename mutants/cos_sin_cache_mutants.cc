#include "mutants/cos_sin_cache_mutants.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/cache_rotation.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/policy/storage_arith.h"
#include "ropecheck/capabilities.h"
#include "ropecheck/dtype.h"

namespace ropecheck::mutant {
namespace {

// What scalar_caller_cache declares: the cache in fp32 or the q/k dtype.
constexpr ropecheck_caps_t kCaps =
    impl::standard_caps(impl::kBothLayouts, ROPECHECK_CAP_CALLER_COS_SIN_CACHE | impl::kAllAxisForms);
constexpr std::uint32_t kCacheDtypes = (1u << ROPECHECK_DTYPE_F32) | ROPECHECK_COS_SIN_CACHE_OF_STORAGE;

struct CacheKernel {
  Bug bug;
};

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Bug bug = static_cast<const CacheKernel*>(ctx)->bug;
  if (auto s = impl::check_apply(kCaps, p, err, n)) return s;
  if (!cos_sin_cache_dtype_accepted(kCacheDtypes, p->cache_dtype, p->dtype)) {
    impl::set_error(err, n, "cache_dtype: %u not read by this implementation", p->cache_dtype);
    return ROPECHECK_UNSUPPORTED;
  }
  ropecheck_apply_params_t call = *p;
  const std::int64_t elements = p->cache_max_position * p->rotary_dim;
  const int half = p->rotary_dim / 2;
  const bool narrow_q = p->dtype != ROPECHECK_DTYPE_F32 && p->cache_dtype == ROPECHECK_DTYPE_F32;
  std::vector<float> cache;
  std::vector<unsigned char> swapped;
  std::vector<std::int64_t> rows64;
  std::vector<std::int32_t> rows32;
  switch (bug) {
    case Bug::cos_sin_cache_downcast:
    case Bug::cos_sin_cache_downcast_in_place: {
      // The fp32 cache rounded to the query dtype before use: the rows the
      // call reads, in a copy or (in place) in the caller's own buffer.
      if (!narrow_q) break;
      float* rows = static_cast<float*>(const_cast<void*>(p->cos_sin_cache));
      if (bug == Bug::cos_sin_cache_downcast) {
        const float* given = rows;
        cache.assign(given, given + elements);
        rows = cache.data();
        call.cos_sin_cache = cache.data();
      }
      const int axes = impl::axes_of(p) > 0 ? impl::axes_of(p) : 1;
      for (int a = 0; a < axes; ++a)
        for (std::int64_t t = 0; t < p->num_tokens; ++t) {
          float* row = rows + impl::position_at(p, t, a) * p->rotary_dim;
          for (int j = 0; j < p->rotary_dim; ++j) row[j] = impl::round_to_storage(row[j], p->dtype);
        }
      break;
    }
    case Bug::cos_sin_cache_halves_swapped: {
      // Each row read as sin | cos.
      const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->cache_dtype));
      const std::size_t half_bytes = static_cast<std::size_t>(half) * es;
      swapped.resize(static_cast<std::size_t>(elements) * es);
      const auto* from = static_cast<const unsigned char*>(p->cos_sin_cache);
      for (std::int64_t r = 0; r < p->cache_max_position; ++r) {
        unsigned char* to = swapped.data() + static_cast<std::size_t>(r) * 2 * half_bytes;
        std::memcpy(to, from + (static_cast<std::size_t>(r) * 2 + 1) * half_bytes, half_bytes);
        std::memcpy(to + half_bytes, from + static_cast<std::size_t>(r) * 2 * half_bytes, half_bytes);
      }
      call.cos_sin_cache = swapped.data();
      break;
    }
    case Bug::cos_sin_cache_row_of_token: {
      // Row t for token t on every axis, bounds-checked as the positions are.
      const int axes = impl::axes_of(p) > 0 ? impl::axes_of(p) : 1;
      const std::int64_t stride = axes > 1 ? p->position_axis_stride : p->num_tokens;
      const std::size_t ids = static_cast<std::size_t>(stride * (axes - 1) + p->num_tokens);
      for (std::int64_t t = 0; t < p->num_tokens; ++t)
        if (t >= p->cache_max_position) {
          impl::set_error(err, n, "token %lld: past the cos/sin cache of %lld rows", static_cast<long long>(t),
                          static_cast<long long>(p->cache_max_position));
          return ROPECHECK_POSITION_OUT_OF_RANGE;
        }
      if (p->position_type == ROPECHECK_INDEX_INT32) {
        rows32.assign(ids, 0);
        for (int a = 0; a < axes; ++a)
          for (std::int64_t t = 0; t < p->num_tokens; ++t) rows32[static_cast<std::size_t>(a * stride + t)] = static_cast<std::int32_t>(t);
        call.positions = rows32.data();
      } else {
        rows64.assign(ids, 0);
        for (int a = 0; a < axes; ++a)
          for (std::int64_t t = 0; t < p->num_tokens; ++t) rows64[static_cast<std::size_t>(a * stride + t)] = t;
        call.positions = rows64.data();
      }
      break;
    }
    default: break;
  }
  impl::rotate_from_cache(call);
  return ROPECHECK_OK;
}

}  // namespace

bool is_cos_sin_cache_bug(Bug bug) {
  switch (bug) {
    case Bug::cos_sin_cache_downcast:
    case Bug::cos_sin_cache_downcast_in_place:
    case Bug::cos_sin_cache_halves_swapped:
    case Bug::cos_sin_cache_row_of_token: return true;
    default: return false;
  }
}

ropecheck_impl_t cos_sin_cache_mutant_table(const BugInfo& info) {
  static std::deque<CacheKernel> kernels;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  CacheKernel& k = kernels.emplace_back(CacheKernel{info.bug});
  ropecheck_impl_t t = impl::kernel_table(
      info.name, info.description, kCaps,
      libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32), apply, nullptr,
      nullptr, &k);
  t.cos_sin_cache_dtypes = kCacheDtypes;
  return t;
}

}  // namespace ropecheck::mutant
