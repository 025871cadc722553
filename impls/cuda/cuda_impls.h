// SPDX-License-Identifier: MIT
// The CUDA RoPE kernels under the ABI. Registered only when a CUDA device is
// present (cuda_device_available); without one, CI still compiles them and
// gates their per-thread code through the host simulation (hostsim.h).
#ifndef ROPECHECK_IMPLS_CUDA_CUDA_IMPLS_H_
#define ROPECHECK_IMPLS_CUDA_CUDA_IMPLS_H_

#include <string>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

// True when the CUDA runtime finds at least one device; `why` says why not.
bool cuda_device_available(std::string* why = nullptr);
const ropecheck_impl_t* cuda_cache_impl();
const ropecheck_impl_t* cuda_otf_impl();

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_CUDA_CUDA_IMPLS_H_
