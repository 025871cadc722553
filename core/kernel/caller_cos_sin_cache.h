// SPDX-License-Identifier: MIT
// The cos/sin cache ropecheck passes in to a kernel granting
// CALLER_COS_SIN_CACHE (ABI 1.6), as vLLM and FlashInfer take theirs: [rows,
// rotary_dim] in the case's cache dtype (core/cases/cos_sin_cache_case.h),
// row p holding m cos(p w_i) for i < rotary_dim/2 then m sin(p w_i), each
// the exact value rounded once to that dtype (the exact reference's
// rotation of the unit vector (1, 0): its fast path, MPFR where its bounds
// leave the rounding open). Only the rows of positions the case names are
// computed; every other row holds a quiet NaN (far from every named row of
// a large cache: zeros, below), so a kernel that reads a row no token's
// position names (the token index, position + 1) puts NaN or zeros into
// what it writes. The bytes are a pure function of the case, the dtype and
// the row count: a reproduce line rebuilds them.
#ifndef ROPECHECK_CORE_KERNEL_CALLER_COS_SIN_CACHE_H_
#define ROPECHECK_CORE_KERNEL_CALLER_COS_SIN_CACHE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/cases/cases.h"
#include "core/cases/cos_sin_cache_case.h"
#include "core/cases/fork_private.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Everything a cache built from a frequency spec depends on but the row
// count, as bytes: the ABI spec with its arrays, and rotary_dim.
std::string freq_cache_key(const ropecheck_freq_spec_t& f, int rotary_dim);

// One thread's caller cache, reused between calls (a case's properties call
// its kernel many times on the same cache): build() makes it the cache of a
// case (nothing to do when it already is), unchanged() says whether it
// still holds what build() put there.
//
// It lives in a mapping reserved for its whole [rows, rotary_dim] extent,
// up to kMaxCallerCacheBytes (issue #48: a limit of 2^24 elements skipped
// every long-context and most MLA cases of a kernel reading the caller's
// cache). Up to kDenseCacheBytes every row is written (NaN where no
// position names the row); above, only the pages holding a named row are
// (NaN there but in the named rows), and every other page is never touched:
// it reads as zeros and costs no memory, so a kernel reading a row far from
// every named one multiplies by cos = sin = 0 and is judged wrong. The
// written pages are live_ranges(); isolation copies only those.
inline constexpr std::size_t kDenseCacheBytes = std::size_t{64} << 20;
class CallerCosSinCache {
 public:
  CallerCosSinCache() = default;
  ~CallerCosSinCache();
  CallerCosSinCache(const CallerCosSinCache&) = delete;
  CallerCosSinCache& operator=(const CallerCosSinCache&) = delete;
  // The cache of case c in `dtype` with `rows` rows (>= 1); false when its
  // extent cannot be reserved (the address space a ulimit leaves).
  bool build(const Case& c, ropecheck_dtype_t dtype, std::int64_t rows);
  const void* data() const { return base_; }
  std::size_t size_bytes() const { return bytes_; }
  // The whole reservation data() starts (page aligned, at least size_bytes()).
  std::size_t mapped_bytes() const { return mapped_; }
  // The byte ranges [first, second) of data() that were written, ascending,
  // page aligned (but the last may end with the extent); everything else
  // reads as zero.
  const std::vector<std::pair<std::size_t, std::size_t>>& live_ranges() const { return live_; }
  // Names these bytes for isolation (name_cache_contents): new whenever a
  // build changes them.
  std::uint64_t generation() const { return generation_; }
  // Bit for bit what build() made (a kernel wrote into it otherwise; the
  // next build then refills every row).
  bool unchanged() const;
  // Its bytes are no longer trusted (a write was seen): the next build
  // refills every row.
  void invalidate() { dirty_ = true; }
  // The value of element (row, column) as built (for tests).
  double value(std::int64_t row, int column) const;

 private:
  ropecheck_dtype_t dtype_ = ROPECHECK_DTYPE_F32;
  int rotary_dim_ = 0;
  std::int64_t rows_ = 0;
  unsigned char* base_ = nullptr;  // the reservation, mapped_ bytes (>= bytes_)
  std::size_t mapped_ = 0, bytes_ = 0;
  std::vector<std::pair<std::size_t, std::size_t>> live_;
  // The rows holding values (sorted) and their bytes, one after the
  // other; every other byte of a live range is a NaN.
  std::vector<std::int64_t> exact_rows_;
  std::vector<unsigned char> exact_bytes_;
  std::string signature_;  // what the bytes are a function of (build)
  std::uint64_t generation_ = 0;
  mutable bool dirty_ = true;  // unknown contents: the next build refills every row
};

// This thread's instance (the kernel call's).
CallerCosSinCache& thread_caller_cache();

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_CALLER_COS_SIN_CACHE_H_
