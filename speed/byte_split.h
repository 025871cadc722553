// SPDX-License-Identifier: MIT
// How the baselines split their bytes over threads: the SIMD kernels' own
// rule (impls/simd/row_split.h: at least kMinBytesPerWorker bytes a worker)
// on their own worker pool (impls/simd/worker_pool.h), so a kernel's ratio
// to a baseline compares the work, not the threading. bench/rope_bench.cc
// and ropecheck bench's baseline kernels (speed/baseline_kernels.h) both
// split through here.
#ifndef ROPECHECK_SPEED_BYTE_SPLIT_H_
#define ROPECHECK_SPEED_BYTE_SPLIT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "impls/simd/row_split.h"
#include "impls/simd/worker_pool.h"

namespace ropecheck::speed {

// Workers for `bytes` of q and k with up to `threads` threads.
inline int workers_for(std::size_t bytes, int threads) {
  return static_cast<int>(
      std::clamp<std::int64_t>(static_cast<std::int64_t>(bytes) / impl::kMinBytesPerWorker, 1, std::max(threads, 1)));
}

// fn(begin, end) over `workers` 64-byte-aligned slices of [0, n), on the
// worker pool.
template <class Fn>
void split_bytes(std::size_t n, int workers, Fn&& fn) {
  const std::size_t chunk = (n / static_cast<std::size_t>(workers) + 63) & ~std::size_t{63};
  impl::run_parallel(workers, [&](int w) {
    const std::size_t a = std::min(n, static_cast<std::size_t>(w) * chunk);
    const std::size_t e = w + 1 == workers ? n : std::min(n, a + chunk);
    if (a < e) fn(a, e);
  });
}

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_BYTE_SPLIT_H_
