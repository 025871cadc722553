// SPDX-License-Identifier: MIT
// The rotation of a cos/sin cache kernel (vLLM's rotary_embedding,
// FlashInfer's apply_rope_with_cos_sin_cache): every rotary pair of q and k
// turned by the cache row of its position (multi-axis, ABI 1.3: the row of
// its axis's position), the row's m cos | m sin read in the call's
// cache_dtype and converted exactly to fp32, the rotation in fp32. Shared by
// the scalar cache kernels (impls/scalar/cached.cc) and the bug catalogue's
// cache rows, so each is one change away from the other.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_CACHE_ROTATION_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_CACHE_ROTATION_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

// Call after check_apply accepted the call (positions inside the cache) and
// the kernel accepted its cache_dtype.
void rotate_from_cache(const ropecheck_apply_params_t& p);

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_CACHE_ROTATION_H_
