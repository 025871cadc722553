// The SIMD kernels pass the whole gate (every property) on every Highway
// target this CPU supports, not only the one the dispatcher would pick: each
// target is a gtest parameter printed by name (SimdTargets/Gate.AllProperties/AVX2).
#include <gtest/gtest.h>

#include <hwy/targets.h>
#include <hwy/tests/hwy_gtest.h>

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
    EXPECT_EQ(one.out.bytes[0], three.out.bytes[0]) << impl->name;
    EXPECT_EQ(one.out.bytes[1], three.out.bytes[1]) << impl->name;
  }
}

}  // namespace
}  // namespace ropecheck
