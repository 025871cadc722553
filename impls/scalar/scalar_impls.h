// SPDX-License-Identifier: MIT
// Entry points of the scalar CPU kernels; impls/registry.cc lists them.
#ifndef ROPECHECK_IMPLS_SCALAR_SCALAR_IMPLS_H_
#define ROPECHECK_IMPLS_SCALAR_SCALAR_IMPLS_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

const ropecheck_impl_t* scalar_naive_impl();
const ropecheck_impl_t* scalar_rotate_half_impl();
const ropecheck_impl_t* scalar_complex_impl();
const ropecheck_impl_t* scalar_cached_impl();
// ABI 1.6: the rotation from a cos/sin cache the caller passes in (cached.cc).
const ropecheck_impl_t* scalar_caller_cache_impl();
// ABI 1.4: the rotation fused with a KV-cache write (fused_kv_write.cc).
const ropecheck_impl_t* scalar_fused_kv_vllm_impl();
const ropecheck_impl_t* scalar_fused_kv_flashinfer_impl();
// ABI 1.5: the rotation fused with the per-head qk-norm (fused_qk_norm.cc).
const ropecheck_impl_t* scalar_fused_qk_norm_vllm_impl();
const ropecheck_impl_t* scalar_fused_qk_norm_qwen3_impl();
const ropecheck_impl_t* scalar_fused_qk_norm_gemma_impl();

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_SCALAR_SCALAR_IMPLS_H_
