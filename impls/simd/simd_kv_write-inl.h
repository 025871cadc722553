// SPDX-License-Identifier: MIT
// Per-target body of the fused SIMD kernel (fused_kv_simd.cc): simd_cache's
// rotation (simd_token-inl.h's row loop, unchanged) with the paged KV-cache
// write of ABI 1.4 and MLA's latent caches of 1.5, in vLLM's arithmetic:
// after a token's k heads are rotated and stored in the q/k dtype, each head's
// entry is written from k as stored (it is still in L1), divided by its scale
// in fp32 and rounded to the cache dtype (vLLM's rotary_embedding then
// reshape_and_cache_flash, csrc/cache_kernels.cu, the order its fused kernel
// reproduces bit for bit), and v beside it; a padding token (slot < 0) is
// rotated and not written. Every field is read through ropecheck/kv_write.h,
// as the scalar fused kernels read it (impls/scalar/fused_kv_write.cc), and
// every element is stored as their store_kv stores it (simd_kv_store-inl.h).
// Compiled once per Highway target, hence the toggling include guard.
#if defined(ROPECHECK_IMPLS_SIMD_SIMD_KV_WRITE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_SIMD_KV_WRITE_INL_H_
#undef ROPECHECK_IMPLS_SIMD_SIMD_KV_WRITE_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_SIMD_KV_WRITE_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

#include "impls/simd/simd_job.h"
#include "impls/simd/simd_kv_store-inl.h"
#include "impls/simd/simd_token-inl.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/kv_write.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The cache entries of k heads [h0, h1) of `token`, whose rotated values k.out
// holds: each head's k and v entries (K_AND_V), or k_pe and the latent kv_c
// with the entry's one scale (MLA: one k head).
HWY_INLINE void WriteKvEntries(const SimdJob& j, const ropecheck_kv_write_t& w, std::int64_t token, int h0, int h1) {
  const std::int64_t slot = w.slot_mapping[token];
  if (slot < 0) return;  // padding: rotated above, nothing cached
  const std::int64_t es = j.dtype == ROPECHECK_DTYPE_F32 ? 4 : 2;
  const auto* k = static_cast<const unsigned char*>(j.k.out) + j.k.token_offset(token) * es;
  // v is NULL when a K_AND_V write has no v cache (kv_write.h): no offset
  // is applied to it then.
  const auto* v = w.v == nullptr ? nullptr : static_cast<const unsigned char*>(w.v) + token * w.v_token_stride * es;
  if (kv_is_mla(w)) {
    const float s = w.k_scale[0];
    KvRow(k, j.dtype, j.head_dim, s, w.k_cache, mla_k_pe_offset(w, slot, 0), w.cache_dtype);
    void* latent = w.cache_kind == ROPECHECK_KV_CACHE_MLA_JOINT ? w.k_cache : w.v_cache;
    KvRow(v, j.dtype, w.latent_dim, s, latent, mla_latent_offset(w, slot, 0), w.cache_dtype);
    return;
  }
  for (int h = h0; h < h1; ++h) {
    const std::int64_t at = kv_element_offset(w, slot, h, 0);
    KvRow(k + h * j.k.head_stride * es, j.dtype, j.head_dim, kv_scale_of(w.k_scale, w.scale_kind, h), w.k_cache, at,
          w.cache_dtype);
    if (w.v_cache != nullptr)
      KvRow(v + h * w.v_head_stride * es, j.dtype, j.head_dim, kv_scale_of(w.v_scale, w.scale_kind, h), w.v_cache,
            at, w.cache_dtype);
  }
}

// Rows [begin, end) of the job (simd_job.h), rotated as simd_cache rotates
// them, each k head's entries written by this thread right after it (none
// when w is null: a call without a write).
void RunFusedRows(const SimdJob& j, const ropecheck_kv_write_t* w, std::int64_t begin, std::int64_t end,
                  float* scratch) {
  if (w == nullptr) return RunRowsThen(j, begin, end, scratch, [](std::int64_t, int, int) {});
  RunRowsThen(j, begin, end, scratch,
              [&](std::int64_t token, int h0, int h1) { WriteKvEntries(j, *w, token, h0, h1); });
}

// One cache row as the kernel writes it, for the conversion test.
void KvCacheRow(const void* src, std::uint32_t dtype, int n, float scale, void* cache, std::uint32_t cache_dtype) {
  KvRow(src, dtype, n, scale, cache, 0, cache_dtype);
}

const char* KvTargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
