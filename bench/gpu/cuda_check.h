// SPDX-License-Identifier: MIT
// CUDA_CHECK(call): the GPU programs of bench/gpu stop at the first CUDA
// error, naming the call, its file and line, with exit status 2.
#ifndef ROPECHECK_BENCH_GPU_CUDA_CHECK_H_
#define ROPECHECK_BENCH_GPU_CUDA_CHECK_H_

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x)                                                                           \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)

#endif  // ROPECHECK_BENCH_GPU_CUDA_CHECK_H_
