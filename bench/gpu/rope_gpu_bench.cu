// SPDX-License-Identifier: MIT
// GPU RoPE throughput beside a device-to-device copy of the same byte count,
// timed with CUDA events in the same process. Shape: tokens 16384, 32 q heads,
// 8 kv heads, head_dim 128, in place, fp32 and bf16, cache and on-the-fly.
// Prints one markdown row per case; bench/gpu/run.sh puts them in a table.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/gpu/cuda_check.h"
#include "impls/kernel_support/cache_builder.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/cuda/launch.h"

namespace {

constexpr long kTokens = 16384, kMaxPos = 16384;
constexpr int kQ = 32, kKv = 8, kD = 128, kReps = 50;

float time_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  std::printf("device: %s, driver %d, %d SMs\n", prop.name, driver, prop.multiProcessorCount);
  ropecheck_freq_spec_t f{};
  f.scheme = ROPECHECK_SCHEME_DEFAULT;
  f.base = 500000.0;
  std::vector<float> cache_h(static_cast<size_t>(kMaxPos) * kD);
  char err[256];
  if (ropecheck::impl::build_cos_sin_cache_f64(&f, kD, kMaxPos, ROPECHECK_DTYPE_F32, cache_h.data(), err,
                                               sizeof err) != ROPECHECK_OK) {
    std::fprintf(stderr, "%s\n", err);
    return 1;
  }
  const auto freqs = ropecheck::impl::engine_frequencies<double>(f, kD);
  std::vector<int> pos_h(kTokens);
  for (long t = 0; t < kTokens; ++t) pos_h[t] = static_cast<int>(t);
  void *q, *k, *scratch, *pos, *cache, *inv, *status;
  const size_t max_bytes = static_cast<size_t>(kTokens) * (kQ + kKv) * kD * 4;
  CUDA_CHECK(cudaMalloc(&q, max_bytes));
  CUDA_CHECK(cudaMalloc(&k, max_bytes));
  CUDA_CHECK(cudaMalloc(&scratch, 2 * max_bytes));
  CUDA_CHECK(cudaMalloc(&pos, kTokens * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&cache, cache_h.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&inv, freqs.inv_freq.size() * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&status, sizeof(int)));
  CUDA_CHECK(cudaMemset(q, 0, max_bytes));
  CUDA_CHECK(cudaMemset(k, 0, max_bytes));
  CUDA_CHECK(cudaMemset(status, 0, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(pos, pos_h.data(), kTokens * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(cache, cache_h.data(), cache_h.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(inv, freqs.inv_freq.data(), freqs.inv_freq.size() * sizeof(double), cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  std::printf("| mode | dtype | kernel GB/s | d2d copy GB/s | vs copy | kernel us |\n|---|---|---:|---:|---:|---:|\n");
  for (int dtype : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_BF16}) {
    const size_t es = dtype == ROPECHECK_DTYPE_F32 ? 4 : 2;
    const size_t qk = static_cast<size_t>(kTokens) * (kQ + kKv) * kD * es;
    // Copy baseline: the q+k bytes once each way, device to device.
    CUDA_CHECK(cudaMemcpy(scratch, q, qk, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaEventRecord(a));
    for (int r = 0; r < kReps; ++r)
      CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(scratch) + qk, scratch, qk, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaEventRecord(b));
    CUDA_CHECK(cudaEventSynchronize(b));
    const double copy_gbps = 2.0 * qk * kReps / (time_ms(a, b) * 1e6);
    for (int cache_mode : {1, 0}) {
      ropecheck::cuda::Params p{};
      p.tokens = kTokens;
      p.q_heads = kQ;
      p.kv_heads = kKv;
      p.head_dim = p.rotary_dim = kD;
      p.dtype = dtype;
      p.layout = ROPECHECK_LAYOUT_HALF_SPLIT;
      p.sign = 1.0f;
      p.q_in = p.q_out = q;
      p.k_in = p.k_out = k;
      p.q_token_stride = kQ * kD;
      p.k_token_stride = kKv * kD;
      p.q_head_stride = p.k_head_stride = kD;
      p.positions = pos;
      p.positions_are_int64 = 0;
      p.cache = cache_mode ? static_cast<const float*>(cache) : nullptr;
      p.cache_rows = kMaxPos;
      p.inv_freq = static_cast<const double*>(inv);
      p.m = 1.0f;
      p.status = static_cast<int*>(status);
      CUDA_CHECK(ropecheck::cuda::launch(p, nullptr));  // warm-up
      CUDA_CHECK(cudaEventRecord(a));
      for (int r = 0; r < kReps; ++r) CUDA_CHECK(ropecheck::cuda::launch(p, nullptr));
      CUDA_CHECK(cudaEventRecord(b));
      CUDA_CHECK(cudaEventSynchronize(b));
      const double ms = time_ms(a, b) / kReps;
      const double bytes = 2.0 * qk + (cache_mode ? static_cast<double>(kTokens) * kD * 4 : 0.0);
      const double gbps = bytes / (ms * 1e6);
      std::printf("| %s | %s | %.1f | %.1f | %.2f | %.1f |\n", cache_mode ? "cache" : "on-the-fly",
                  dtype == ROPECHECK_DTYPE_F32 ? "fp32" : "bf16", gbps, copy_gbps, gbps / copy_gbps, ms * 1e3);
    }
  }
  return 0;
}
