// SPDX-License-Identifier: MIT
// Launching the CUDA kernel on device pointers, as an engine would (the ABI
// adapter stages host buffers instead). Used by the GPU benchmark.
#ifndef ROPECHECK_IMPLS_CUDA_LAUNCH_H_
#define ROPECHECK_IMPLS_CUDA_LAUNCH_H_

#include <cuda_runtime.h>

#include "impls/cuda/rope_cuda_math.cuh"

namespace ropecheck::cuda {

// All pointers in p are device pointers; p.vec is chosen from them.
cudaError_t launch(Params p, cudaStream_t stream);

}  // namespace ropecheck::cuda

#endif  // ROPECHECK_IMPLS_CUDA_LAUNCH_H_
