// SPDX-License-Identifier: MIT
// The CUDA kernels' per-thread functions run on the host over the same
// grid/block decomposition (one block per token, kThreads threads), wrapped as
// ABI implementations so the whole gate runs on them in CI without a GPU.
#ifndef ROPECHECK_IMPLS_CUDA_HOSTSIM_H_
#define ROPECHECK_IMPLS_CUDA_HOSTSIM_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck::cuda {

inline constexpr int kThreads = 128;  // threads per block, host and device

const ropecheck_impl_t* hostsim_cache_impl();
const ropecheck_impl_t* hostsim_otf_impl();

}  // namespace ropecheck::cuda

#endif  // ROPECHECK_IMPLS_CUDA_HOSTSIM_H_
