// SPDX-License-Identifier: MIT
// Highway dispatch file for the fused SIMD kernel simd_fused_kv_vllm, in
// Highway's four parts: HWY_TARGET_INCLUDE, foreach_target.h, the per-target
// body (simd_kv_write-inl.h), and the HWY_ONCE block with the ABI entry point
// and the table. A translation unit of its own: the rotation loops compiled
// again here with the cache stores, rather than beside rope_simd.cc's, keep
// each unit's compile time and memory as they were (impls/CMakeLists.txt).
//
// What it declares is what it computes: simd_cache's rotation (fp64
// frequencies and angles, an fp32 cos/sin cache, fp32 arithmetic), and the
// cache write of vLLM (kv_policy: sat(x / scale), one fp32 division, of the
// k as stored in the q/k dtype), in every cache dtype, per-tensor and
// per-head scales, K and V caches and MLA's joint and split latent caches.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impls/simd/fused_kv_simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <hwy/highway.h>

#include "impls/simd/simd_kv_write-inl.h"

#if HWY_ONCE
#include <cstdint>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/cache_builder.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/pair_axes.h"
#include "impls/simd/simd_call.h"
#include "impls/simd/simd_impls.h"
#include "impls/simd/simd_job.h"
#include "ropecheck/kv_write.h"

namespace ropecheck::impl {

HWY_EXPORT(RunFusedRows);
HWY_EXPORT(KvCacheRow);
HWY_EXPORT(KvTargetName);

namespace {

constexpr ropecheck_caps_t kFusedCaps =
    standard_caps(kBothLayouts, ROPECHECK_CAP_COS_SIN_CACHE | kAllAxisForms | ROPECHECK_CAP_KV_CACHE_WRITE);

ropecheck_status_t apply_fused(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto st = check_simd_target(err, n)) return st;
  if (auto st = check_apply(kFusedCaps, p, err, n)) return st;  // the write included (kv_write_error)
  SimdJob j = simd_job_of(*p);
  j.cache = static_cast<const float*>(p->cos_sin_cache);
  const PairAxisMap axes = pair_axis_map(*p);
  set_simd_job_axes(*p, axes, &j);
  const ropecheck_kv_write_t* w = kv_write_of(*p);
  run_simd_rows(j, [&](std::int64_t begin, std::int64_t end, float* scratch) {
    HWY_DYNAMIC_DISPATCH(RunFusedRows)(j, w, begin, end, scratch);
  });
  return ROPECHECK_OK;
}

const char* target_of(void*) {
  (void)simd_target_pin_error();  // a pinned target applies before the first dispatch
  return HWY_DYNAMIC_DISPATCH(KvTargetName)();
}

}  // namespace

void simd_kv_cache_row(const void* src, std::uint32_t dtype, int n, float scale, void* cache,
                       std::uint32_t cache_dtype) {
  HWY_DYNAMIC_DISPATCH(KvCacheRow)(src, dtype, n, scale, cache, cache_dtype);
}

const ropecheck_impl_t* simd_fused_kv_vllm_impl() {
  static const ropecheck_impl_t impl = [] {
    ropecheck_impl_t t = kernel_table(
        "simd_fused_kv_vllm",
        "Highway SIMD, simd_cache's rotation, then sat(k / k_scale) of the stored k into a paged KV cache (vLLM), "
        "fp8 rounded in vector lanes",
        kFusedCaps, kCacheBuilderPolicy,
        apply_fused, build_cos_sin_cache_entry, target_of);
    t.kv_policy = ropecheck_kv_policy_t{sizeof(ropecheck_kv_policy_t),
                                        (1u << ROPECHECK_KV_DTYPE_COUNT) - 1u,       // every cache dtype
                                        (1u << ROPECHECK_KV_SCALE_KIND_COUNT) - 1u,  // per tensor and per head
                                        ROPECHECK_KV_SCALE_DIVIDE,
                                        1u,   // saturating (store_kv's saturate)
                                        1u};  // the k as stored in the q/k dtype
    t.kv_cache_kinds = (1u << ROPECHECK_KV_CACHE_KIND_COUNT) - 1u;  // K and V, MLA joint and split
    return t;
  }();
  return &impl;
}

}  // namespace ropecheck::impl
#endif  // HWY_ONCE
