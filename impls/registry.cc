// SPDX-License-Identifier: MIT
// The built-in implementations, listed explicitly: adding a kernel to the
// suite is one row here (or one plugin at run time).
#include "impls/registry.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "impls/policy/policy_kernel.h"
#include "impls/scalar/scalar_impls.h"
#include "impls/simd/simd_impls.h"
#include "ropecheck/names.h"

#ifdef ROPECHECK_HAVE_CUDA
#include "impls/cuda/cuda_impls.h"
#endif

namespace ropecheck {
namespace {

const std::vector<RegisteredImpl>& rows() {
  static const std::vector<RegisteredImpl> kRows = [] {
    std::vector<RegisteredImpl> v = {
        {impl::scalar_naive_impl()}, {impl::scalar_rotate_half_impl()}, {impl::scalar_complex_impl()},
        {impl::scalar_cached_impl()}, {impl::simd_cache_impl()},        {impl::simd_otf_impl()},
        {impl::scalar_fused_kv_vllm_impl()}, {impl::scalar_fused_qk_norm_vllm_impl()},
    };
    // The caller's cos/sin cache (ABI 1.6), by name: its rotation is
    // scalar_cached's, judged in the default set; its ctest gates the
    // cache's dtypes.
    v.push_back({impl::scalar_caller_cache_impl(), "", false});
    // The other fused arithmetics, selected by name (their own ctest gates them).
    v.push_back({impl::scalar_fused_kv_flashinfer_impl(), "", false});
    v.push_back({impl::scalar_fused_qk_norm_qwen3_impl(), "", false});
    v.push_back({impl::scalar_fused_qk_norm_gemma_impl(), "", false});
    // The SIMD fused write, by name: the default set already judges its
    // rotation (simd_cache's loop) and its declared write arithmetic
    // (scalar_fused_kv_vllm's), and every default kernel adds to each
    // `ropecheck check` and to CI's time; its own code, the vector stores,
    // is held bit for bit to those two on every target by ctest
    // (impls/test/simd_kv_write_test.cc, simd_kv_store_test.cc).
    v.push_back({impl::simd_fused_kv_vllm_impl(), "", false});
#ifdef ROPECHECK_HAVE_CUDA
    // Only where a device exists: without one there is nothing to run them on.
    if (impl::cuda_device_available()) {
      constexpr const char* kWhy = "a CUDA context does not survive fork()";
      v.push_back({impl::cuda_cache_impl(), kWhy});
      v.push_back({impl::cuda_otf_impl(), kWhy});
    }
#endif
    for (const ropecheck_impl_t* t : impl::policy_kernel_impls()) v.push_back({t, "", false});
    return v;
  }();
  return kRows;
}

}  // namespace

std::span<const RegisteredImpl> registered_impls() { return rows(); }

std::span<const ropecheck_impl_t* const> builtin_impls() {
  static const std::vector<const ropecheck_impl_t*> kTables = [] {
    std::vector<const ropecheck_impl_t*> v;
    for (const RegisteredImpl& r : rows())
      if (r.default_set) v.push_back(r.table);
    return v;
  }();
  return kTables;
}

const RegisteredImpl* find_registered(std::string_view name) {
  for (const RegisteredImpl& r : rows())
    if (name == r.table->name) return &r;
  return nullptr;
}

const ropecheck_impl_t* find_impl(std::string_view name) {
  const RegisteredImpl* r = find_registered(name);
  return r ? r->table : nullptr;
}

std::string builtin_reproduce_environment() {
  const char* target = std::getenv(kSimdTargetEnv);
  const bool pinned = target != nullptr && *target != '\0' &&
                      std::all_of(target, target + std::strlen(target), [](char ch) {
                        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                      });
  return pinned ? std::string(kSimdTargetEnv) + "=" + target + " " : std::string();
}

void set_builtin_kernel_threads(int threads) { impl::set_simd_threads(threads); }

}  // namespace ropecheck
