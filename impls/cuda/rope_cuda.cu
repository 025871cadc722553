// SPDX-License-Identifier: MIT
// The CUDA kernels: a thin __global__ over the per-thread functions of
// rope_cuda_math.cuh, and the ABI adapter that stages host buffers on the
// device (the ABI speaks host pointers; an engine calling the kernel directly
// would pass device pointers to launch()).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "impls/kernel_support/cache_builder.h"
#include "impls/cuda/cuda_impls.h"
#include "impls/cuda/hostsim.h"
#include "impls/cuda/launch.h"
#include "impls/cuda/params_from_abi.h"

namespace ropecheck::cuda {

__global__ void rope_kernel(Params p) {
  extern __shared__ float shared[];
  const int pairs = p.rotary_dim / 2;
  float* c = shared;
  float* s = shared + pairs;
  const std::int64_t token = blockIdx.x;
  // Phase A: the token's cos/sin row. A position outside the cache is
  // reported through *status and the block returns without touching data.
  __shared__ int bad;
  if (threadIdx.x == 0) bad = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < pairs; i += blockDim.x)
    if (!fill_trig(p, token, i, c, s)) atomicOr(&bad, 1);
  __syncthreads();
  if (bad) {
    if (threadIdx.x == 0) atomicExch(p.status, 1);
    return;
  }
  // Phase B: rotate.
  const int items = items_per_token(p);
  for (int w = threadIdx.x; w < items; w += blockDim.x) rotate_item(p, token, w, c, s);
}

cudaError_t launch(Params p, cudaStream_t stream) {
  if (p.tokens == 0) return cudaSuccess;
  p.vec = choose_vec(p);
  const std::size_t shmem = sizeof(float) * static_cast<std::size_t>(p.rotary_dim);
  rope_kernel<<<static_cast<unsigned>(p.tokens), kThreads, shmem, stream>>>(p);
  return cudaGetLastError();
}

namespace {

std::string cuda_error(cudaError_t e, const char* what) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}

// Extent in elements of a strided [tokens, heads, head_dim] tensor, its
// tokens in sequences of seq_len (0: one run) ss elements apart.
std::size_t extent(std::int64_t tokens, int heads, int head_dim, std::int64_t ts, std::int64_t hs,
                   std::int64_t seq_len, std::int64_t ss) {
  if (tokens == 0 || heads == 0) return 0;
  const std::int64_t per = seq_len > 0 ? seq_len : tokens, seqs = seq_len > 0 ? tokens / seq_len : 1;
  return static_cast<std::size_t>((seqs - 1) * ss + (per - 1) * ts + (heads - 1) * hs + head_dim);
}

struct DeviceBuffer {
  void* ptr = nullptr;
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
};

ropecheck_status_t launch_from_host(bool cache_mode, const ropecheck_apply_params_t* a, char* err, std::size_t n) {
  Params p;
  HostTables tables;
  const std::vector<double>& freqs = tables.freqs;
  if (auto st = params_from_abi(cache_mode, a, &p, &tables, err, n)) return st;
  if (p.tokens == 0) return ROPECHECK_OK;
  const std::size_t es = a->dtype == ROPECHECK_DTYPE_F32 ? 4 : 2;
  const std::size_t qn = extent(p.tokens, p.q_heads, p.head_dim, p.q_token_stride, p.q_head_stride, p.seq_len,
                                 p.q_seq_stride) * es;
  const std::size_t kn = extent(p.tokens, p.kv_heads, p.head_dim, p.k_token_stride, p.k_head_stride, p.seq_len,
                                 p.k_seq_stride) * es;
  // Every axis row of a multi-axis call (ABI 1.3), and its pair-to-axis map.
  const std::size_t pn = static_cast<std::size_t>(p.axes > 0 ? p.axis_stride * (p.axes - 1) + p.tokens : p.tokens) *
                         (p.positions_are_int64 ? 8 : 4);
  const std::size_t an = tables.pair_axis.size() * sizeof(int);
  const std::size_t cn = cache_mode ? static_cast<std::size_t>(p.cache_rows) * p.rotary_dim * sizeof(float) : 0;
  const std::size_t fn = freqs.size() * sizeof(double);
  DeviceBuffer qi, qo, ki, ko, pos, cache, fr, axis, status;
  auto alloc = [&](DeviceBuffer& b, std::size_t bytes) {
    return bytes == 0 ? cudaSuccess : cudaMalloc(&b.ptr, bytes);
  };
  auto up = [&](DeviceBuffer& b, const void* src, std::size_t bytes) {
    return bytes == 0 ? cudaSuccess : cudaMemcpy(b.ptr, src, bytes, cudaMemcpyHostToDevice);
  };
  const bool q_inplace = a->q_in == a->q_out, k_inplace = a->k_in == a->k_out;
  cudaError_t e = cudaSuccess;
  for (auto step : {alloc(qi, qn), q_inplace ? cudaSuccess : alloc(qo, qn), alloc(ki, kn),
                    k_inplace ? cudaSuccess : alloc(ko, kn), alloc(pos, pn), alloc(cache, cn), alloc(fr, fn),
                    alloc(axis, an), alloc(status, sizeof(int))})
    if (step != cudaSuccess) e = step;
  if (e != cudaSuccess) {
    impl::set_error(err, n, "%s", cuda_error(e, "cudaMalloc").c_str());
    return ROPECHECK_INTERNAL_ERROR;
  }
  // Out-of-place outputs start as the caller's buffers, so elements the
  // kernel must not write come back unchanged.
  for (auto step : {up(qi, a->q_in, qn), q_inplace ? cudaSuccess : up(qo, a->q_out, qn), up(ki, a->k_in, kn),
                    k_inplace ? cudaSuccess : up(ko, a->k_out, kn), up(pos, a->positions, pn),
                    up(cache, a->cos_sin_cache, cn), up(fr, freqs.data(), fn), up(axis, tables.pair_axis.data(), an),
                    cudaMemset(status.ptr, 0, sizeof(int))})
    if (step != cudaSuccess) e = step;
  if (e != cudaSuccess) {
    impl::set_error(err, n, "%s", cuda_error(e, "cudaMemcpy to device").c_str());
    return ROPECHECK_INTERNAL_ERROR;
  }
  Params d = p;
  d.q_in = qi.ptr;
  d.q_out = q_inplace ? qi.ptr : qo.ptr;
  d.k_in = ki.ptr;
  d.k_out = k_inplace ? ki.ptr : ko.ptr;
  d.positions = pos.ptr;
  d.cache = cache_mode ? static_cast<const float*>(cache.ptr) : nullptr;
  d.inv_freq = cache_mode ? nullptr : static_cast<const double*>(fr.ptr);
  d.pair_axis = p.axes > 0 ? static_cast<const int*>(axis.ptr) : nullptr;
  d.status = static_cast<int*>(status.ptr);
  e = launch(d, nullptr);  // device allocations are 256-byte aligned: wide accesses when strides allow
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    impl::set_error(err, n, "%s", cuda_error(e, "rope_kernel").c_str());
    return ROPECHECK_INTERNAL_ERROR;
  }
  int bad = 0;
  cudaMemcpy(&bad, status.ptr, sizeof(int), cudaMemcpyDeviceToHost);
  if (bad) {
    impl::set_error(err, n, "positions: a position lies outside the cos/sin cache (reported by the kernel)");
    return ROPECHECK_POSITION_OUT_OF_RANGE;
  }
  e = cudaMemcpy(a->q_out, q_inplace ? qi.ptr : qo.ptr, qn, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(a->k_out, k_inplace ? ki.ptr : ko.ptr, kn, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    impl::set_error(err, n, "%s", cuda_error(e, "cudaMemcpy to host").c_str());
    return ROPECHECK_INTERNAL_ERROR;
  }
  return ROPECHECK_OK;
}

}  // namespace
}  // namespace ropecheck::cuda

namespace ropecheck::impl {

bool cuda_device_available(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (why) *why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
    cudaGetLastError();  // clear the sticky error
    return false;
  }
  return true;
}

namespace {

ropecheck_status_t launch_cache(void*, const ropecheck_apply_params_t* a, char* err, std::size_t n) {
  return cuda::launch_from_host(true, a, err, n);
}
ropecheck_status_t launch_otf(void*, const ropecheck_apply_params_t* a, char* err, std::size_t n) {
  return cuda::launch_from_host(false, a, err, n);
}

}  // namespace

const ropecheck_impl_t* cuda_cache_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "cuda_cache", "CUDA, fp32 [max_pos, rotary_dim] cos|sin cache (built in double), kernel-side bounds check",
      cuda::kCacheCaps, cuda::kCachePolicy, launch_cache, build_cos_sin_cache_entry);
  return &impl;
}

const ropecheck_impl_t* cuda_otf_impl() {
  static const ropecheck_impl_t impl =
      kernel_table("cuda_otf", "CUDA, angles on the fly: double product reduced mod 2pi, __sincosf", cuda::kOtfCaps,
                   cuda::kOtfPolicy, launch_otf);
  return &impl;
}

}  // namespace ropecheck::impl
