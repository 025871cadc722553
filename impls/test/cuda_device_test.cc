// SPDX-License-Identifier: MIT
// GPU tests (ctest label `cuda`): the CUDA kernels pass the whole gate on
// the device, and the kernel reports a position outside the cache. Skipped,
// with the reason, where no device exists.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "impls/cuda/cuda_impls.h"
#include "gate/test/gate_run.h"

namespace ropecheck {
namespace {

// GTEST_SKIP returns from the function it is written in, so it has to be in
// the test body itself.
#define REQUIRE_CUDA_DEVICE()                                                               \
  do {                                                                                      \
    std::string why;                                                                        \
    if (!impl::cuda_device_available(&why))                                                 \
      GTEST_SKIP() << "no CUDA device (" << why << "): GPU tests skipped";                  \
  } while (0)

TEST(CudaDevice, PassesEveryPropertyOfTheGate) {
  REQUIRE_CUDA_DEVICE();
  const GateRun g = run_quick_gate({impl::cuda_cache_impl(), impl::cuda_otf_impl()});
  EXPECT_TRUE(g.report.passed()) << g.text;
  std::cout << g.text;
}

TEST(CudaDevice, KernelReportsPositionsOutsideTheCache) {
  REQUIRE_CUDA_DEVICE();
  const ropecheck_impl_t* impl = impl::cuda_cache_impl();
  std::vector<float> q(2 * 64, 0.5f), k(2 * 64, 0.25f), cache(4 * 64, 0.0f);
  std::vector<std::int64_t> pos = {1, 4};  // 4 rows: position 4 is one past the end
  ropecheck_freq_spec_t f{};
  f.base = 10000;
  ropecheck_apply_params_t p{};
  p.struct_size = sizeof p;
  p.dtype = ROPECHECK_DTYPE_F32;
  p.num_tokens = 2;
  p.num_q_heads = p.num_kv_heads = 1;
  p.head_dim = p.rotary_dim = 64;
  p.q_in = p.q_out = q.data();
  p.k_in = p.k_out = k.data();
  p.q_token_stride = p.k_token_stride = p.q_head_stride = p.k_head_stride = 64;
  p.positions = pos.data();
  p.position_type = ROPECHECK_INDEX_INT64;
  p.freq = &f;
  p.cos_sin_cache = cache.data();
  p.cache_max_position = 4;
  char err[256];
  EXPECT_EQ(impl->apply(impl->ctx, &p, err, sizeof err), ROPECHECK_POSITION_OUT_OF_RANGE) << err;
}

}  // namespace
}  // namespace ropecheck
