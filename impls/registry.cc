// The built-in implementations, listed explicitly: adding a kernel to the
// suite is one row here (or one plugin at run time).
#include "ropecheck/registry.h"

#include "scalar/scalar_impls.h"
#include "simd/simd_impls.h"

namespace ropecheck {

std::span<const ropecheck_impl_t* const> builtin_impls() {
  static const ropecheck_impl_t* const kImpls[] = {
      impl::scalar_naive_impl(),
      impl::scalar_rotate_half_impl(),
      impl::scalar_complex_impl(),
      impl::scalar_cached_impl(),
      impl::simd_cache_impl(),
      impl::simd_otf_impl(),
  };
  return kImpls;
}

const ropecheck_impl_t* find_impl(std::string_view name) {
  for (const ropecheck_impl_t* impl : builtin_impls())
    if (name == impl->name) return impl;
  return nullptr;
}

}  // namespace ropecheck
