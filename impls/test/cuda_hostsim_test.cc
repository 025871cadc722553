// SPDX-License-Identifier: MIT
// The CUDA kernels' per-thread code and grid/block indexing, run on the host
// over the same decomposition, pass the whole gate: every property, both
// layouts, every dtype, padded strides (scalar accesses) and aligned ones
// (16-byte vector accesses). Runs in every CI build; no GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "impls/cuda/hostsim.h"
#include "impls/cuda/rope_cuda_math.cuh"
#include "gate/test/gate_run.h"

namespace ropecheck {
namespace {

TEST(CudaHostSim, PassesEveryPropertyOfTheGate) {
  const GateRun g = run_quick_gate({cuda::hostsim_cache_impl(), cuda::hostsim_otf_impl()}, 60);
  EXPECT_TRUE(g.report.passed()) << g.text;
}

// The grid covers the 16-byte vector path too: unpadded fp32/bf16 heads
// with rotary_dim a multiple of the vector take it.
TEST(CudaHostSim, WideAccessesAreChosenOnlyWhenAligned) {
  alignas(16) static float q[4 * 128];
  cuda::Params p{};
  p.dtype = ROPECHECK_DTYPE_F32;
  p.layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  p.rotary_dim = 128;
  p.head_dim = 128;
  p.q_in = p.q_out = q;
  p.q_token_stride = 128;
  p.q_head_stride = 128;
  EXPECT_EQ(cuda::choose_vec(p), 4);
  p.dtype = ROPECHECK_DTYPE_BF16;
  EXPECT_EQ(cuda::choose_vec(p), 8);
  p.q_head_stride = 130;  // padded: 260 bytes is not a multiple of 16
  EXPECT_EQ(cuda::choose_vec(p), 1);
  p.q_head_stride = 128;
  p.rotary_dim = 36;  // 18 pairs: not a multiple of 8
  EXPECT_EQ(cuda::choose_vec(p), 1);
}

TEST(CudaHostSim, ReducesAnglesExactlyEnoughAtLongContext) {
  // a = 2^31 - 1 radians: the reduction must land within a few ulp of double
  // of the true remainder, which no fp32 argument could.
  const double a = 2147483647.0;
  const double r = impl::reduce_two_pi(a);
  EXPECT_LE(std::fabs(r), 3.1415927);
  // 2147483647 - 2 pi round(2147483647 / 2 pi) = -2.3306794058326505
  // (exact rational arithmetic, 64-digit 2 pi).
  EXPECT_NEAR(r, -2.3306794058326505, 1e-12);
}

}  // namespace
}  // namespace ropecheck
