// The cos/sin cache ropecheck passes in to a kernel granting
// CALLER_COS_SIN_CACHE (ABI 1.6), as vLLM and FlashInfer take theirs: [rows,
// rotary_dim] in the case's cache dtype (core/cases/cos_sin_cache_case.h),
// row p holding m cos(p w_i) for i < rotary_dim/2 then m sin(p w_i), each
// the exact value rounded once to that dtype (the exact reference's
// rotation of the unit vector (1, 0): its fast path, MPFR where its bounds
// leave the rounding open). Only the rows of positions the case names are
// computed; every other row holds a quiet NaN, so a kernel that reads a row
// no token's position names (the token index, position + 1) puts NaN into
// what it writes. The bytes are a pure function of the case, the dtype and
// the row count: a reproduce line rebuilds them.
#ifndef ROPECHECK_CORE_KERNEL_CALLER_COS_SIN_CACHE_H_
#define ROPECHECK_CORE_KERNEL_CALLER_COS_SIN_CACHE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/cases/cases.h"
#include "core/cases/fork_private.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Everything a cache built from a frequency spec depends on but the row
// count, as bytes: the ABI spec with its arrays, and rotary_dim.
std::string freq_cache_key(const ropecheck_freq_spec_t& f, int rotary_dim);

// One thread's caller cache, reused between calls (a cache is up to 64 MiB;
// building it afresh was a page fault per page, and a case's properties
// call its kernel many times on the same cache): build() makes it the cache
// of a case (nothing to do when it already is), unchanged() says whether it
// still holds what build() put there.
class CallerCosSinCache {
 public:
  // The cache of case c in `dtype` with `rows` rows (>= 1).
  void build(const Case& c, ropecheck_dtype_t dtype, std::int64_t rows);
  const void* data() const { return bytes_.data(); }
  std::size_t size_bytes() const { return bytes_.size(); }
  // Names these bytes for isolation (name_cache_contents): new whenever a
  // build changes them.
  std::uint64_t generation() const { return generation_; }
  // Bit for bit what build() made (a kernel wrote into it otherwise; the
  // next build then refills every row).
  bool unchanged() const;
  // The value of element (row, column) as built (for tests).
  double value(std::int64_t row, int column) const;

 private:
  ropecheck_dtype_t dtype_ = ROPECHECK_DTYPE_F32;
  int rotary_dim_ = 0;
  std::int64_t rows_ = 0;
  ByteBuffer bytes_;
  // The rows holding values (sorted) and their bytes, one after the
  // other; every other row is NaN.
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
