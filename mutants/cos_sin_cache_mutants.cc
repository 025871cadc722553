// SPDX-License-Identifier: MIT
// The definitions of mutants/cos_sin_cache_mutants.h.
#include "mutants/cos_sin_cache_mutants.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
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

// A private copy of the caller's cache holding the rows the call's
// positions name (a cache may reserve terabytes of address space with only
// those rows written: core/kernel/caller_cos_sin_cache.h), the others never
// touched: what the kernels with these bugs compute from, at their size.
class RowsCopy {
 public:
  RowsCopy(const ropecheck_apply_params_t& p, std::size_t es) : row_bytes_(static_cast<std::size_t>(p.rotary_dim) * es) {
    bytes_ = static_cast<std::size_t>(p.cache_max_position) * row_bytes_;
    void* m = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    base_ = m == MAP_FAILED ? nullptr : static_cast<unsigned char*>(m);
    const int axes = impl::axes_of(&p) > 0 ? impl::axes_of(&p) : 1;
    for (int a = 0; a < axes && base_; ++a)
      for (std::int64_t t = 0; t < p.num_tokens; ++t) {
        const std::int64_t r = impl::position_at(&p, t, a);
        rows_.push_back(r);
        std::memcpy(row(r), static_cast<const unsigned char*>(p.cos_sin_cache) + static_cast<std::size_t>(r) * row_bytes_,
                    row_bytes_);
      }
  }
  ~RowsCopy() {
    if (base_) ::munmap(base_, bytes_);
  }
  RowsCopy(const RowsCopy&) = delete;
  RowsCopy& operator=(const RowsCopy&) = delete;
  bool ok() const { return base_ != nullptr; }
  unsigned char* data() { return base_; }
  unsigned char* row(std::int64_t r) { return base_ + static_cast<std::size_t>(r) * row_bytes_; }
  const std::vector<std::int64_t>& rows() const { return rows_; }

 private:
  std::size_t row_bytes_, bytes_ = 0;
  unsigned char* base_ = nullptr;
  std::vector<std::int64_t> rows_;
};

// What a row hands the control's lookup instead of the caller's cache or
// positions: a copy of the rows it reads, or ids of its own. Alive until the
// lookup has run.
struct CacheCall {
  const ropecheck_apply_params_t* p;
  ropecheck_apply_params_t call;  // what the lookup is handed
  std::size_t es;                 // bytes per cache element
  std::optional<RowsCopy> copy;
  std::vector<std::int64_t> rows64;
  std::vector<std::int32_t> rows32;
};

// The fp32 cache rounded to the query dtype before use: the rows the call
// reads, in a copy (cos_sin_cache_downcast) or in the caller's own buffer
// (_in_place).
ropecheck_status_t downcast(CacheCall& c, bool in_place) {
  const ropecheck_apply_params_t* p = c.p;
  if (p->dtype == ROPECHECK_DTYPE_F32 || p->cache_dtype != ROPECHECK_DTYPE_F32) return ROPECHECK_OK;
  float* rows = static_cast<float*>(const_cast<void*>(p->cos_sin_cache));
  if (!in_place) {
    c.copy.emplace(*p, c.es);
    if (!c.copy->ok()) return ROPECHECK_INTERNAL_ERROR;
    rows = reinterpret_cast<float*>(c.copy->data());
    c.call.cos_sin_cache = c.copy->data();
  }
  const int axes = impl::axes_of(p) > 0 ? impl::axes_of(p) : 1;
  for (int a = 0; a < axes; ++a)
    for (std::int64_t t = 0; t < p->num_tokens; ++t) {
      float* row = rows + impl::position_at(p, t, a) * p->rotary_dim;
      for (int j = 0; j < p->rotary_dim; ++j) row[j] = impl::round_to_storage(row[j], p->dtype);
    }
  return ROPECHECK_OK;
}

// Each row read as sin | cos.
ropecheck_status_t halves_swapped(CacheCall& c) {
  const std::size_t half_bytes = static_cast<std::size_t>(c.p->rotary_dim / 2) * c.es;
  c.copy.emplace(*c.p, c.es);
  if (!c.copy->ok()) return ROPECHECK_INTERNAL_ERROR;
  std::vector<unsigned char> cos_half(half_bytes);
  std::vector<std::int64_t> rows = c.copy->rows();
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  for (const std::int64_t r : rows) {
    unsigned char* at = c.copy->row(r);
    std::memcpy(cos_half.data(), at, half_bytes);
    std::memmove(at, at + half_bytes, half_bytes);
    std::memcpy(at + half_bytes, cos_half.data(), half_bytes);
  }
  c.call.cos_sin_cache = c.copy->data();
  return ROPECHECK_OK;
}

// Row t for token t on every axis, bounds-checked as the positions are.
ropecheck_status_t row_of_token(CacheCall& c, char* err, std::size_t n) {
  const ropecheck_apply_params_t* p = c.p;
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
    c.rows32.assign(ids, 0);
    for (int a = 0; a < axes; ++a)
      for (std::int64_t t = 0; t < p->num_tokens; ++t)
        c.rows32[static_cast<std::size_t>(a * stride + t)] = static_cast<std::int32_t>(t);
    c.call.positions = c.rows32.data();
  } else {
    c.rows64.assign(ids, 0);
    for (int a = 0; a < axes; ++a)
      for (std::int64_t t = 0; t < p->num_tokens; ++t) c.rows64[static_cast<std::size_t>(a * stride + t)] = t;
    c.call.positions = c.rows64.data();
  }
  return ROPECHECK_OK;
}

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Bug bug = static_cast<const CacheKernel*>(ctx)->bug;
  if (auto s = impl::check_apply(kCaps, p, err, n)) return s;
  if (!cos_sin_cache_dtype_accepted(kCacheDtypes, p->cache_dtype, p->dtype)) {
    impl::set_error(err, n, "cache_dtype: %u not read by this implementation", p->cache_dtype);
    return ROPECHECK_UNSUPPORTED;
  }
  CacheCall c{.p = p, .call = *p, .es = dtype_size(static_cast<ropecheck_dtype_t>(p->cache_dtype)), .copy = {},
              .rows64 = {}, .rows32 = {}};
  ropecheck_status_t st = ROPECHECK_OK;
  switch (bug) {
    case Bug::cos_sin_cache_downcast: st = downcast(c, false); break;
    case Bug::cos_sin_cache_downcast_in_place: st = downcast(c, true); break;
    case Bug::cos_sin_cache_halves_swapped: st = halves_swapped(c); break;
    case Bug::cos_sin_cache_row_of_token: st = row_of_token(c, err, n); break;
    default: break;
  }
  if (st != ROPECHECK_OK) return st;
  impl::rotate_from_cache(c.call);
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

const ropecheck_impl_t* caller_cache_control() {
  static const ropecheck_impl_t t = cos_sin_cache_mutant_table(bug_info(Bug::none));
  return &t;
}

}  // namespace ropecheck::mutant
