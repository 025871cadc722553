// SPDX-License-Identifier: MIT
// The scalar cos/sin cache kernels, vLLM/FlashInfer style: apply only looks
// rows of a [max_position, rotary_dim] cache up (m*cos then m*sin per row)
// and reports a position outside the cache instead of reading past it.
// Multi-axis (ABI 1.3, shared frequencies): pair i reads its entry from the
// row of its axis's position.
//   scalar_cached: its own fp32 cache, which build_cache fills in double.
//   scalar_caller_cache (ABI 1.6, CALLER_COS_SIN_CACHE): the cache the
//     caller passes in, as vLLM's rotary_embedding takes its cos_sin_cache
//     (in the activation dtype: the layer casts it to query.dtype) and
//     FlashInfer's apply_rope_with_cos_sin_cache (fp32): it reads fp32 or the
//     q/k dtype, each value converted exactly to fp32 for the rotation. The
//     example to copy for a kernel handed its cache.
#include <cstdint>
#include <string>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/cache_builder.h"
#include "impls/kernel_support/cache_rotation.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/scalar/scalar_impls.h"
#include "ropecheck/capabilities.h"
#include "ropecheck/names.h"

namespace ropecheck::impl {
namespace {

struct Variant {
  ropecheck_caps_t caps;
  std::uint32_t caller_dtypes;  // the table's cos_sin_cache_dtypes (0: its own cache)
};

constexpr Variant kOwn{standard_caps(kBothLayouts, ROPECHECK_CAP_COS_SIN_CACHE | kAllAxisForms), 0u};
constexpr Variant kCaller{standard_caps(kBothLayouts, ROPECHECK_CAP_CALLER_COS_SIN_CACHE | kAllAxisForms),
                          (1u << ROPECHECK_DTYPE_F32) | ROPECHECK_COS_SIN_CACHE_OF_STORAGE};

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Variant& v = *static_cast<const Variant*>(ctx);
  if (auto s = check_apply(v.caps, p, err, n)) return s;
  if (v.caller_dtypes != 0 && !cos_sin_cache_dtype_accepted(v.caller_dtypes, p->cache_dtype, p->dtype)) {
    set_error(err, n, "cache_dtype: %s with %s q/k; this implementation reads an f32 cache or one in the q/k dtype",
              std::string(dtype_name(static_cast<ropecheck_dtype_t>(p->cache_dtype))).c_str(),
              std::string(dtype_name(static_cast<ropecheck_dtype_t>(p->dtype))).c_str());
    return ROPECHECK_UNSUPPORTED;
  }
  rotate_from_cache(*p);
  return ROPECHECK_OK;
}

}  // namespace

const ropecheck_impl_t* scalar_cached_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "scalar_cached", "[max_pos, rotary_dim] fp32 cos|sin cache built in double; bounds-checked lookup", kOwn.caps,
      kCacheBuilderPolicy, apply,
      build_cos_sin_cache_entry, nullptr, const_cast<Variant*>(&kOwn));
  return &impl;
}

const ropecheck_impl_t* scalar_caller_cache_impl() {
  static const ropecheck_impl_t impl = [] {
    // The angle and sin/cos fields of the policy describe a kernel that
    // forms its own; with the caller's cache its error is that cache's one
    // rounding (docs/ERROR_MODEL.md, E4c) and the fp32 rotation declared
    // here. cos/sin f32: every f16 and bf16 value is an f32 one, so
    // converting the cache adds no rounding.
    ropecheck_impl_t t = kernel_table(
        "scalar_caller_cache",
        "the caller's [max_pos, rotary_dim] cos|sin cache (vLLM's cos_sin_cache), fp32 or the q/k dtype; fp32 rotation",
        kCaller.caps, libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32),
        apply, nullptr, nullptr, const_cast<Variant*>(&kCaller));
    t.cos_sin_cache_dtypes = kCaller.caller_dtypes;
    return t;
  }();
  return &impl;
}

}  // namespace ropecheck::impl
