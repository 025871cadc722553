// The built-in implementations, listed explicitly: adding a kernel to the
// suite is one row here (or one plugin at run time).
#include "ropecheck/registry.h"

#include "scalar/scalar_impls.h"
#include "simd/simd_impls.h"

#include <vector>

#ifdef ROPECHECK_HAVE_CUDA
#include "cuda/cuda_impls.h"
#endif

namespace ropecheck {

std::span<const ropecheck_impl_t* const> builtin_impls() {
  static const std::vector<const ropecheck_impl_t*> kImpls = [] {
    std::vector<const ropecheck_impl_t*> v = {
        impl::scalar_naive_impl(), impl::scalar_rotate_half_impl(), impl::scalar_complex_impl(),
        impl::scalar_cached_impl(), impl::simd_cache_impl(),        impl::simd_otf_impl(),
    };
#ifdef ROPECHECK_HAVE_CUDA
    // Only where a device exists: without one there is nothing to run them on.
    if (impl::cuda_device_available()) {
      v.push_back(impl::cuda_cache_impl());
      v.push_back(impl::cuda_otf_impl());
    }
#endif
    return v;
  }();
  return kImpls;
}

const ropecheck_impl_t* find_impl(std::string_view name) {
  for (const ropecheck_impl_t* impl : builtin_impls())
    if (name == impl->name) return impl;
  return nullptr;
}

}  // namespace ropecheck
