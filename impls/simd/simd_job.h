// SPDX-License-Identifier: MIT
// One apply call as the SIMD target code sees it: plain data, no Highway
// types (Highway's rule for headers outside the per-target code). The ABI
// entry points (rope_simd.cc) fill it after the contract check; the per-target
// row loop (rope_simd-inl.h) reads it.
//
// The work is a list of rows: row r is head r % heads_per_token() of token
// r / heads_per_token(), q heads first, then k heads. Threads take contiguous
// row ranges (row_split.h), so every row is rotated by exactly one thread and
// with the same arithmetic whatever the split: the bits never depend on the
// thread count.
#ifndef ROPECHECK_IMPLS_SIMD_SIMD_JOB_H_
#define ROPECHECK_IMPLS_SIMD_SIMD_JOB_H_

#include <cstdint>

namespace ropecheck::impl {

struct SimdTensor {
  const void* in = nullptr;
  void* out = nullptr;
  std::int64_t token_stride = 0, head_stride = 0;  // elements
  int heads = 0;
  std::int64_t seq_stride = 0;  // ABI 1.2: between sequences, when seq_len > 0
  std::int64_t seq_len = 0;     // 0: one run of tokens
  // Element offset of token t's first head.
  std::int64_t token_offset(std::int64_t t) const {
    return seq_len > 0 ? (t / seq_len) * seq_stride + (t % seq_len) * token_stride : t * token_stride;
  }
};

struct SimdJob {
  SimdTensor q, k;
  std::int64_t num_tokens = 0;
  int head_dim = 0;
  int pairs = 0;            // rotary_dim / 2
  std::uint32_t dtype = 0;  // ropecheck_dtype_t of q and k
  bool interleaved = false;
  const void* positions = nullptr;
  bool positions_int32 = false;
  float sign = 1.0f;  // -1 for the inverse direction: folded into sin
  // Cache mode: the [max_position, 2 * pairs] fp32 cos|sin rows (m folded in).
  const float* cache = nullptr;
  // On the fly (cache == nullptr): the engine's double frequencies, padded
  // with zeros to padded_pairs(pairs) entries, and the attention factor.
  const double* inv_freq = nullptr;
  float m = 1.0f;
  int threads = 0;  // apply_params.num_threads (0: set_simd_threads' count)
  // ABI 1.3 multi-axis positions: 0 (one position per token) or the axis
  // count; pair i rotates with the id of axis pair_axis[i], whose row starts
  // axis_stride ids after the previous axis's.
  int axes = 0;
  const int* pair_axis = nullptr;
  std::int64_t axis_stride = 0;

  int heads_per_token() const { return q.heads + k.heads; }
  std::int64_t rows() const { return num_tokens * heads_per_token(); }
};

// Per-pair scratch rows hold the pairs rounded up to a cache line's 64
// floats plus 128 floats of slack: a whole-vector loop may run up to two
// vectors of the widest Highway target (2048-bit SVE) past the last pair.
inline constexpr int kSimdRowPad = 128;

inline int padded_pairs(int pairs) { return (pairs + 63) / 64 * 64 + kSimdRowPad; }

// Floats of per-thread scratch a job needs: eight padded per-pair rows
// (rope_simd-inl.h lays them out).
inline std::int64_t scratch_floats(const SimdJob& j) { return 8 * static_cast<std::int64_t>(padded_pairs(j.pairs)); }

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_SIMD_SIMD_JOB_H_
