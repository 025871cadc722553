// SPDX-License-Identifier: MIT
// How a SIMD job's rows (simd_job.h) are shared among threads: the definitions of impls/simd/row_split.h.
#include "impls/simd/row_split.h"

#include <algorithm>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {
namespace {

constexpr std::uintptr_t kLine = 64;

std::int64_t elem_size(const SimdJob& j) { return j.dtype == ROPECHECK_DTYPE_F32 ? 4 : 2; }

// Address of the first output element of row r.
std::uintptr_t row_address(const SimdJob& j, std::int64_t r) {
  const int H = j.heads_per_token();
  const std::int64_t t = r / H;
  const int h = static_cast<int>(r % H);
  const bool is_q = h < j.q.heads;
  const SimdTensor& x = is_q ? j.q : j.k;
  const std::int64_t off = x.token_offset(t) + (is_q ? h : h - j.q.heads) * x.head_stride;
  return reinterpret_cast<std::uintptr_t>(x.out) + static_cast<std::uintptr_t>(off * elem_size(j));
}

// How many of the rows' tensors start a cache line at a token split before
// `token`: q's first head and k's first head of that token.
int token_score(const SimdJob& j, std::int64_t token) {
  const std::int64_t row = token * j.heads_per_token();
  int score = 0;
  if (j.q.heads > 0) score += row_address(j, row) % kLine == 0;
  if (j.k.heads > 0) score += row_address(j, row + j.q.heads) % kLine == 0;
  return score;
}

int row_score(const SimdJob& j, std::int64_t row) { return row_address(j, row) % kLine == 0; }

// The unit index (token or row) nearest `ideal` in (lo, hi) with the best
// score, looking at most `window` units either side.
template <class Score>
std::int64_t best_split(std::int64_t ideal, std::int64_t lo, std::int64_t hi, std::int64_t window, int max_score,
                        Score score) {
  std::int64_t best = ideal;
  int best_score = score(ideal);
  for (std::int64_t delta = 1; delta <= window && best_score < max_score; ++delta)
    for (std::int64_t cand : {ideal - delta, ideal + delta})
      if (cand > lo && cand < hi) {
        const int s = score(cand);
        if (s > best_score) {
          best = cand;
          best_score = s;
        }
      }
  return best;
}

}  // namespace

std::vector<RowRange> split_rows(const SimdJob& j, int threads) {
  const std::int64_t rows = j.rows();
  if (rows <= 0) return {};
  const std::int64_t bytes = rows * j.head_dim * elem_size(j);
  const std::int64_t workers =
      std::max<std::int64_t>(1, std::min<std::int64_t>({threads, bytes / kMinBytesPerWorker, rows}));
  const int H = j.heads_per_token();
  const bool by_token = j.num_tokens >= workers;
  const std::int64_t units = by_token ? j.num_tokens : rows;
  const std::int64_t window = std::min<std::int64_t>(32, units / workers / 8);
  const int max_score = by_token ? (j.q.heads > 0) + (j.k.heads > 0) : 1;

  std::vector<RowRange> out;
  std::int64_t prev = 0;  // in units
  for (std::int64_t w = 1; w <= workers; ++w) {
    std::int64_t cut = units;
    if (w < workers) {
      const std::int64_t ideal = std::max(prev + 1, (w * units + workers / 2) / workers);
      cut = by_token ? best_split(ideal, prev, units, window, max_score,
                                  [&](std::int64_t t) { return token_score(j, t); })
                     : best_split(ideal, prev, units, window, max_score,
                                  [&](std::int64_t r) { return row_score(j, r); });
      cut = std::clamp(cut, prev + 1, units);
    }
    if (cut > prev) out.push_back({by_token ? prev * H : prev, by_token ? cut * H : cut});
    prev = cut;
  }
  return out;
}

}  // namespace ropecheck::impl
