// The SIMD kernels on every Highway target this CPU supports, not only the
// one the dispatcher would pick: each target is a gtest parameter printed by
// name (SimdTargets/Gate.AllProperties/AVX2).
//   - the whole quick gate (every property);
//   - every storage dtype x layout x head shape whose pair count exercises a
//     different mix of whole vectors and tails (1 pair up to 256, odd counts,
//     partial rotary), judged against the reference.
#include <gtest/gtest.h>

#include <hwy/targets.h>
#include <hwy/tests/hwy_gtest.h>

#include <string>
#include <utility>

#include "core/cases.h"
#include "gate/test/gate_run.h"
#include "impls/simd/simd_impls.h"
#include "properties/property.h"

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

// (head_dim, rotary_dim): pair counts below, at and above the vector widths
// of every target (4, 8, 16 fp32 lanes; bf16 half split takes 2N pairs per
// step), odd ones (9, 17, 33, 40, 72: head_dim 80 and 144), partial rotary
// and an odd head_dim with pass-through channels.
constexpr std::pair<int, int> kShapes[] = {{2, 2},     {6, 6},     {18, 18},   {34, 34},  {67, 66},
                                           {80, 80},   {96, 48},   {128, 128}, {144, 144}, {130, 128},
                                           {256, 256}, {512, 512}, {512, 130}};

TEST_P(SimdTargets, EveryDtypeLayoutAndTailOnThisTarget) {
  ASSERT_STREQ(impl::simd_target_name(), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  const prop::Property* conforms = prop::find_property("ConformsToReference");
  ASSERT_NE(conforms, nullptr);
  int index = 0, judged = 0;
  for (ropecheck_dtype_t dtype : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16})
    for (ropecheck_layout_t layout : {ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED})
      for (auto [head_dim, rotary_dim] : kShapes) {
        // A drawn case (its scheme, inputs, padding) with the shape forced.
        Case c = make_case(Suite::kQuick, 23, index++);
        c.shape.head_dim = head_dim;
        c.shape.rotary_dim = rotary_dim;
        c.dtype = dtype;
        c.layout = layout;
        c.tokens = 3;
        c.q_heads = 2;
        c.kv_heads = 1;
        c.positions = {0, 4097, 8191};
        c.in_place = index % 2 == 0;
        c.direction = index % 5 == 0 ? ROPECHECK_DIRECTION_INVERSE : ROPECHECK_DIRECTION_FORWARD;
        // The scheme was drawn for another rotary_dim: redraw it for this one.
        Rng rng(23, static_cast<std::uint64_t>(index));
        c.freq = draw_scheme(rng, rotary_dim, static_cast<ropecheck_scheme_t>(c.freq.scheme));
        prop::CaseContext ctx(c);
        for (const ropecheck_impl_t* k : {impl::simd_cache_impl(), impl::simd_otf_impl()}) {
          const prop::PropertyResult r = conforms->check(*k, ctx);
          if (r.outcome == Outcome::kSkipped) continue;
          ++judged;
          EXPECT_EQ(r.outcome, Outcome::kPass) << k->name << " on " << hwy::TargetName(GetParam()) << ": "
                                               << c.describe() << "\n"
                                               << r.message;
        }
      }
  EXPECT_GT(judged, 100) << "too many shapes skipped";
}

}  // namespace
}  // namespace ropecheck
