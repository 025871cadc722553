// SPDX-License-Identifier: MIT
// The definitions of impls/cuda/hostsim.h.
#include "impls/cuda/hostsim.h"

#include <vector>

#include "impls/kernel_support/cache_builder.h"
#include "impls/cuda/params_from_abi.h"

namespace ropecheck::cuda {
namespace {

// What the kernel does, block by block and thread by thread: phase A for
// every thread, the barrier, then phase B for every thread.
ropecheck_status_t simulate(bool cache_mode, const ropecheck_apply_params_t* a, char* err, std::size_t n) {
  Params p;
  HostTables tables;
  if (auto st = params_from_abi(cache_mode, a, &p, &tables, err, n)) return st;
  const int pairs = p.rotary_dim / 2;
  std::vector<float> c(pairs), s(pairs);  // the block's shared memory
  const int items = items_per_token(p);
  for (std::int64_t block = 0; block < p.tokens; ++block) {
    bool ok = true;
    for (int t = 0; t < kThreads; ++t)
      for (int i = t; i < pairs; i += kThreads) ok &= fill_trig(p, block, i, c.data(), s.data());
    if (!ok) {  // the device sets *status and the block returns
      impl::set_error(err, n, "positions[%lld]: outside the cos/sin cache", static_cast<long long>(block));
      return ROPECHECK_POSITION_OUT_OF_RANGE;
    }
    for (int t = 0; t < kThreads; ++t)
      for (int w = t; w < items; w += kThreads) rotate_item(p, block, w, c.data(), s.data());
  }
  return ROPECHECK_OK;
}

ropecheck_status_t simulate_cache(void*, const ropecheck_apply_params_t* a, char* err, std::size_t n) {
  return simulate(true, a, err, n);
}
ropecheck_status_t simulate_otf(void*, const ropecheck_apply_params_t* a, char* err, std::size_t n) {
  return simulate(false, a, err, n);
}

}  // namespace

const ropecheck_impl_t* hostsim_cache_impl() {
  static const ropecheck_impl_t impl =
      impl::kernel_table("cuda_hostsim_cache", "the CUDA cache kernel's per-thread code run on the host", kCacheCaps,
                         kCachePolicy, simulate_cache, impl::build_cos_sin_cache_entry);
  return &impl;
}

const ropecheck_impl_t* hostsim_otf_impl() {
  static const ropecheck_impl_t impl =
      impl::kernel_table("cuda_hostsim_otf", "the CUDA on-the-fly kernel's per-thread code run on the host",
                         kOtfCaps, kOtfPolicy, simulate_otf);
  return &impl;
}

}  // namespace ropecheck::cuda
