// SPDX-License-Identifier: MIT
// How a SIMD job's rows (simd_job.h) are shared among threads.
//   Prefill (at least as many tokens as workers): contiguous runs of whole
//   tokens, so each token's cos/sin are prepared by one thread only.
//   Decode (fewer tokens than workers: a few sequences of one token each):
//   contiguous runs of heads, splitting inside a token; each thread prepares
//   the cos/sin of the tokens it touches.
// Split points are moved, within a few rows, to where the first output
// element of both q and k starts a 64-byte cache line, so no line is written
// by two threads (no false sharing at the split) whenever the strides allow.
// A job too small to repay a hand-off runs on fewer workers, down to one.
#ifndef ROPECHECK_IMPLS_SIMD_ROW_SPLIT_H_
#define ROPECHECK_IMPLS_SIMD_ROW_SPLIT_H_

#include <cstdint>
#include <vector>

#include "impls/simd/simd_job.h"

namespace ropecheck::impl {

struct RowRange {
  std::int64_t begin = 0, end = 0;
};

// Bytes of q and k a worker must at least rotate to be worth waking: the
// hand-off costs about a microsecond, 64 KiB take several at memory speed.
inline constexpr std::int64_t kMinBytesPerWorker = 64 * 1024;

// Non-empty, ordered ranges covering [0, job.rows()) exactly once, at most
// `threads` of them.
std::vector<RowRange> split_rows(const SimdJob& job, int threads);

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_SIMD_ROW_SPLIT_H_
