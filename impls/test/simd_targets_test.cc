// The SIMD kernels pass the whole gate (every property) on every Highway
// target this CPU supports, not only the one the dispatcher would pick: each
// target is a gtest parameter printed by name (SimdTargets/Gate.AllProperties/AVX2).
#include <gtest/gtest.h>

#include <hwy/targets.h>
#include <hwy/tests/hwy_gtest.h>

#include <cstring>
#include <sstream>
#include <string>

#include "gate/test/gate_run.h"
#include "impls/registry.h"
#include "impls/simd/simd_impls.h"

namespace ropecheck {
namespace {

class SimdTargets : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(SimdTargets);

TEST_P(SimdTargets, PassEveryPropertyOnThisTarget) {
  const std::string expected = hwy::TargetName(GetParam());
  ASSERT_EQ(std::string(impl::simd_target_name()), expected) << "the dispatcher did not switch target";
  const GateRun g = run_quick_gate({impl::simd_cache_impl(), impl::simd_otf_impl()}, 40);
  EXPECT_TRUE(g.report.passed()) << "target " << expected << "\n" << g.text;
  for (const auto& i : g.report.impls)
    for (const auto& [name, s] : i.properties)
      if (s.applicable) {
        EXPECT_GT(s.passed, 0) << i.name << " " << name << " never ran";
      }
}

TEST(SimdThreads, TokenSplitGivesTheSameBitsAsOneThread) {
  const Case c = make_case(Suite::kQuick, 3, 0);
  for (const ropecheck_impl_t* impl : {impl::simd_cache_impl(), impl::simd_otf_impl()}) {
    Case big = c;
    big.tokens = 37;  // not a multiple of the thread count
    big.positions.resize(37);
    for (int t = 0; t < 37; ++t) big.positions[t] = 1000 + 17 * t;
    if (!outside_capabilities(*impl, big).empty()) continue;
    const QkBuffers in = make_inputs(big);
    impl::set_simd_threads(1);
    const KernelRun one = call_kernel(*impl, big, in);
    impl::set_simd_threads(3);
    const KernelRun three = call_kernel(*impl, big, in);
    impl::set_simd_threads(1);
    ASSERT_EQ(one.status, ROPECHECK_OK) << one.message;
    ASSERT_EQ(three.status, ROPECHECK_OK) << three.message;
    // Every element of q and k; padding holds each call's own poison.
    const Geometry g = geometry(big);
    for (int w = 0; w < 2; ++w)
      for (std::int64_t t = 0; t < big.tokens; ++t)
        for (int h = 0; h < g.heads[w]; ++h) {
          const auto at = static_cast<std::size_t>(g.offset(w, t, h, 0)) * g.esize;
          ASSERT_EQ(std::memcmp(one.out.bytes[w].data() + at, three.out.bytes[w].data() + at, g.head_dim * g.esize), 0)
              << impl->name << " tensor " << w << " token " << t << " head " << h;
        }
  }
}

}  // namespace
}  // namespace ropecheck
