// SPDX-License-Identifier: MIT
// The cos/sin cache built from the exact values and passed in to a kernel reading the caller's (ABI 1.6).
#include "core/kernel/caller_cos_sin_cache.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>

#include "core/cases/buffers.h"
#include "core/isolation/isolation.h"
#include "reference/fast_rotation.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

// A quiet NaN of each cache dtype, as stored.
void put_nan(unsigned char* at, ropecheck_dtype_t d) {
  if (d == ROPECHECK_DTYPE_F32) {
    const std::uint32_t v = 0x7fc00000u;
    std::memcpy(at, &v, 4);
  } else {
    const std::uint16_t v = d == ROPECHECK_DTYPE_F16 ? 0x7e00u : 0x7fc0u;
    std::memcpy(at, &v, 2);
  }
}

// 4 KiB of d's quiet NaN, element after element.
const std::vector<unsigned char>& nan_pattern(ropecheck_dtype_t d) {
  static thread_local std::vector<unsigned char> pattern;
  static thread_local ropecheck_dtype_t pattern_dtype = ROPECHECK_DTYPE_F64;
  if (pattern.empty() || pattern_dtype != d) {
    pattern.resize(4096);
    for (std::size_t at = 0; at < pattern.size(); at += dtype_size(d)) put_nan(pattern.data() + at, d);
    pattern_dtype = d;
  }
  return pattern;
}

// NaN in every element of [p, p + n) (n a multiple of the dtype's size),
// a page-sized pattern at a time.
void fill_nan(unsigned char* p, std::size_t n, ropecheck_dtype_t d) {
  const std::vector<unsigned char>& pattern = nan_pattern(d);
  for (std::size_t at = 0; at < n; at += pattern.size()) std::memcpy(p + at, pattern.data(), std::min(pattern.size(), n - at));
}

// Whether every element of [p, p + n) is that NaN.
bool all_nan(const unsigned char* p, std::size_t n, ropecheck_dtype_t d) {
  const std::vector<unsigned char>& pattern = nan_pattern(d);
  for (std::size_t at = 0; at < n; at += pattern.size())
    if (std::memcmp(p + at, pattern.data(), std::min(pattern.size(), n - at)) != 0) return false;
  return true;
}

// The exact rows this thread has computed, per spec and dtype: a case's
// properties call its kernel many times on the same positions (or on
// shifted ones), and each row is a row of the exact reference. Bounded in
// bytes; it starts over past that.
struct RowMemo {
  std::string key;
  std::unordered_map<std::int64_t, std::vector<unsigned char>> rows;
  std::size_t bytes = 0;
};
thread_local RowMemo t_rows;
constexpr std::size_t kMemoBytes = std::size_t{32} << 20;

// The memo's row of each position (sorted, distinct), computing the missing
// ones with one exact reference for the call (which keeps every row's
// sin/cos while it lives, so it lives no longer).
std::vector<const std::vector<unsigned char>*> exact_rows(const Case& c, ropecheck_dtype_t dtype,
                                                          const std::vector<std::int64_t>& positions) {
  RowMemo& m = t_rows;
  std::string key = freq_cache_key(c.freq.to_abi(), c.shape.rotary_dim);
  key.push_back(static_cast<char>(dtype));
  key.append(std::to_string(c.shape.head_dim));
  const int d = c.shape.rotary_dim, pairs = d / 2;
  const std::size_t row_bytes = static_cast<std::size_t>(d) * dtype_size(dtype);
  if (m.key != key || m.bytes + positions.size() * row_bytes > kMemoBytes) {
    m.rows.clear();
    m.bytes = 0;
    m.key = std::move(key);
  }
  std::unique_ptr<ref::FastReference> exact;
  std::vector<const std::vector<unsigned char>*> out;
  out.reserve(positions.size());
  for (std::int64_t p : positions) {
    auto [it, fresh] = m.rows.try_emplace(p);
    out.push_back(&it->second);
    if (!fresh) continue;
    if (!exact) exact = std::make_unique<ref::FastReference>(c.freq, c.shape);
    std::vector<unsigned char>& row = it->second;
    row.resize(row_bytes);
    m.bytes += row_bytes;
    const ref::FastTrigRow& trig = exact->trig(p);
    for (int i = 0; i < pairs; ++i) {
      // The unit vector (1, 0) rotated by p w_i and scaled by m: (m cos,
      // m sin), each rounded once to the dtype as the reference rounds an
      // output.
      const ref::FastPairResult r = exact->rotate_pair(1.0, 0.0, trig, i, /*inverse=*/false, dtype);
      store_value(row.data(), i, dtype, r.rounded[0]);
      store_value(row.data(), pairs + i, dtype, r.rounded[1]);
    }
  }
  return out;
}

}  // namespace

std::string freq_cache_key(const ropecheck_freq_spec_t& f, int rotary_dim) {
  std::string k;
  const auto put = [&k](const void* p, std::size_t n) { k.append(static_cast<const char*>(p), n); };
  put(&f.scheme, sizeof f.scheme);
  for (double v : {f.base, f.factor, f.beta_fast, f.beta_slow, f.attention_factor, f.mscale, f.mscale_all_dim,
                   f.low_freq_factor, f.high_freq_factor})
    put(&v, sizeof v);
  for (std::int64_t v : {f.original_max_position, f.seq_len, static_cast<std::int64_t>(f.truncate),
                         static_cast<std::int64_t>(f.has_attention_factor), static_cast<std::int64_t>(rotary_dim)})
    put(&v, sizeof v);
  for (const double* a : {f.short_factor, f.long_factor, f.inv_freq}) {
    const char present = a != nullptr;
    put(&present, 1);
    if (a) put(a, sizeof(double) * static_cast<std::size_t>(rotary_dim / 2));
  }
  return k;
}

namespace {

std::size_t page_bytes() {
  static const std::size_t p = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return p;
}

// Page-aligned ranges covering each of `rows` (sorted) of row_bytes each in
// an extent of `bytes`, neighbours merged.
std::vector<std::pair<std::size_t, std::size_t>> pages_of_rows(const std::vector<std::int64_t>& rows,
                                                               std::size_t row_bytes, std::size_t bytes) {
  const std::size_t ps = page_bytes();
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const std::int64_t r : rows) {
    const std::size_t b = static_cast<std::size_t>(r) * row_bytes / ps * ps;
    const std::size_t e = std::min(bytes, (static_cast<std::size_t>(r + 1) * row_bytes + ps - 1) / ps * ps);
    if (!out.empty() && b <= out.back().second) out.back().second = std::max(out.back().second, e);
    else out.emplace_back(b, e);
  }
  return out;
}

}  // namespace

CallerCosSinCache::~CallerCosSinCache() {
  if (base_) ::munmap(base_, mapped_);
}

bool CallerCosSinCache::build(const Case& c, ropecheck_dtype_t dtype, std::int64_t rows) {
  // What the bytes depend on: the spec and shape, the dtype, the rows and
  // which of them hold values. The same as the last build's: nothing to do.
  std::vector<std::int64_t> wanted;
  for (std::int64_t p : c.positions)
    if (p >= 0 && p < rows) wanted.push_back(p);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::string signature = freq_cache_key(c.freq.to_abi(), c.shape.rotary_dim);
  for (const std::int64_t v : {static_cast<std::int64_t>(dtype), static_cast<std::int64_t>(c.shape.head_dim), rows})
    signature.append(reinterpret_cast<const char*>(&v), sizeof v);
  signature.append(reinterpret_cast<const char*>(wanted.data()), wanted.size() * sizeof(std::int64_t));
  if (!dirty_ && signature == signature_) return true;
  const int d = c.shape.rotary_dim;
  const std::size_t es = dtype_size(dtype), row_bytes = static_cast<std::size_t>(d) * es;
  const std::size_t bytes = static_cast<std::size_t>(rows) * row_bytes;
  if (bytes > caller_cache_byte_limit()) return false;
  // A dense cache of the same extent, intact: every row is NaN but the last
  // build's exact rows, which go back to NaN (a case's derived cases move
  // its positions; refilling 64 MiB each time cost more than the rows).
  const bool refresh = base_ && !dirty_ && bytes == bytes_ && dtype == dtype_ && d == rotary_dim_ &&
                       bytes <= kDenseCacheBytes;
  dirty_ = true;  // until every exact row is in place
  if (refresh) {
    for (const std::int64_t r : exact_rows_) fill_nan(base_ + static_cast<std::size_t>(r) * row_bytes, row_bytes, dtype);
  }
  // The reservation: kept while it holds the extent (what it held is given
  // back first, so every page not written below reads as zero again).
  const std::size_t ps = page_bytes(), want = (bytes + ps - 1) / ps * ps;
  if (!refresh && base_ && (want > mapped_ || mapped_ > 4 * want)) {
    ::munmap(base_, mapped_);
    base_ = nullptr;
    mapped_ = 0;
  }
  if (!base_) {
    void* m = ::mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    base_ = static_cast<unsigned char*>(m);
    mapped_ = want;
  } else if (!refresh) {
    for (const auto& [b, e] : live_) ::madvise(base_ + b, (e - b + ps - 1) / ps * ps, MADV_DONTNEED);
  }
  bytes_ = bytes;
  dtype_ = dtype;
  rotary_dim_ = d;
  rows_ = rows;
  exact_rows_ = std::move(wanted);
  live_ = bytes <= kDenseCacheBytes ? std::vector<std::pair<std::size_t, std::size_t>>{{0, bytes}}
                                    : pages_of_rows(exact_rows_, row_bytes, bytes);
  // NaN over every live byte (whole elements: a live range starts on a page,
  // and every dtype's size divides a page), then the exact rows.
  if (!refresh)
    for (const auto& [b, e] : live_) fill_nan(base_ + b, e - b, dtype);
  const std::vector<const std::vector<unsigned char>*> values = exact_rows(c, dtype, exact_rows_);
  exact_bytes_.resize(exact_rows_.size() * row_bytes);
  for (std::size_t i = 0; i < exact_rows_.size(); ++i) {
    std::memcpy(base_ + static_cast<std::size_t>(exact_rows_[i]) * row_bytes, values[i]->data(), row_bytes);
    std::memcpy(exact_bytes_.data() + i * row_bytes, values[i]->data(), row_bytes);
  }
  signature_ = std::move(signature);
  generation_ = new_cache_generation();
  dirty_ = false;
  return true;
}

bool CallerCosSinCache::unchanged() const {
  const std::size_t row_bytes = static_cast<std::size_t>(rotary_dim_) * dtype_size(dtype_);
  // Every live byte: a NaN but in the exact rows, which hold their bytes.
  std::size_t next = 0;
  for (const auto& [b, e] : live_) {
    std::size_t at = b;
    while (at < e) {
      while (next < exact_rows_.size() && static_cast<std::size_t>(exact_rows_[next] + 1) * row_bytes <= at) ++next;
      const std::size_t row_at = next < exact_rows_.size() ? static_cast<std::size_t>(exact_rows_[next]) * row_bytes : e;
      if (at >= row_at) {  // inside an exact row
        const std::size_t len = std::min(e, row_at + row_bytes) - at;
        if (std::memcmp(base_ + at, exact_bytes_.data() + next * row_bytes + (at - row_at), len) != 0) {
          dirty_ = true;  // the next build starts from scratch
          return false;
        }
        at += len;
        continue;
      }
      const std::size_t stop = std::min(e, row_at);
      if (!all_nan(base_ + at, stop - at, dtype_)) {
        dirty_ = true;
        return false;
      }
      at = stop;
    }
  }
  return true;
}

double CallerCosSinCache::value(std::int64_t row, int column) const {
  return load_as_double(base_, static_cast<std::size_t>(row * rotary_dim_ + column), dtype_);
}

CallerCosSinCache& thread_caller_cache() {
  thread_local CallerCosSinCache cache;
  return cache;
}

}  // namespace ropecheck
