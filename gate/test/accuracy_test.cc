// SPDX-License-Identifier: MIT
// Accuracy against context length (gate/accuracy.h): the measures read from
// the gate's per-position figures, on figures written by hand (expected
// values by arithmetic), and on two real kernels that error / budget does
// not tell apart and these do.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gate/accuracy.h"
#include "gate/gate_tables.h"
#include "gate/test/gate_run.h"
#include "impls/registry.h"

namespace ropecheck {
namespace {

TEST(Accuracy, TheFinalRoundingAloneIsNoErrorBeyondIt) {
  EXPECT_DOUBLE_EQ(beyond_final_rounding(0), 0);
  EXPECT_DOUBLE_EQ(beyond_final_rounding(0.5), 0);  // half an ulp: the store's own rounding
  EXPECT_DOUBLE_EQ(beyond_final_rounding(0.25), 0);
  EXPECT_DOUBLE_EQ(beyond_final_rounding(2.5), 2);
  EXPECT_TRUE(std::isinf(beyond_final_rounding(HUGE_VAL)));
}

// bf16 at positions 0 and 100 (< 2^10), 2000 (2^10..2^16), 70000
// (2^16..2^20); f32 at 5 only.
ImplReport by_hand() {
  ImplReport i;
  i.name = "k";
  auto& bf16 = i.ulps_by_position[ROPECHECK_DTYPE_BF16];
  bf16[0] = {0.25, 1, 0};
  bf16[100] = {0.5, 2, 0};
  bf16[2000] = {1.25, 3, 1};
  bf16[70000] = {5, 4, 4};
  i.ulps_by_position[ROPECHECK_DTYPE_F32][5] = {3, 7, 2};
  return i;
}

TEST(Accuracy, PerDtypeAndPositionRangeFromThePerPositionFigures) {
  const std::vector<DtypeAccuracy> a = accuracy_by_dtype(by_hand());
  ASSERT_EQ(a.size(), 2u);
  const DtypeAccuracy& f32 = a[0].dtype == ROPECHECK_DTYPE_F32 ? a[0] : a[1];
  const DtypeAccuracy& bf16 = a[0].dtype == ROPECHECK_DTYPE_BF16 ? a[0] : a[1];
  ASSERT_EQ(bf16.dtype, ROPECHECK_DTYPE_BF16);
  EXPECT_EQ(bf16.ranges[0].positions, 2);
  EXPECT_DOUBLE_EQ(bf16.ranges[0].worst_rounded_ulps, 0);
  EXPECT_DOUBLE_EQ(bf16.ranges[0].worst_beyond, 0);
  EXPECT_EQ(bf16.ranges[1].positions, 1);
  EXPECT_DOUBLE_EQ(bf16.ranges[1].worst_rounded_ulps, 1);
  EXPECT_DOUBLE_EQ(bf16.ranges[1].worst_beyond, 0.75);
  EXPECT_EQ(bf16.ranges[1].case_index, 3);
  EXPECT_DOUBLE_EQ(bf16.ranges[2].worst_rounded_ulps, 4);
  EXPECT_DOUBLE_EQ(bf16.ranges[2].worst_beyond, 4.5);
  EXPECT_EQ(bf16.ranges[3].positions, 0);
  // One plot point per 1/8 octave holding a position: 0, 100, 2000, 70000.
  EXPECT_EQ(bf16.curve.size(), 4u);
  EXPECT_DOUBLE_EQ(bf16.curve[0].log2_position, 0);
  EXPECT_DOUBLE_EQ(bf16.curve[3].worst_beyond, 4.5);
  EXPECT_DOUBLE_EQ(f32.ranges[0].worst_rounded_ulps, 2);
  EXPECT_DOUBLE_EQ(f32.ranges[0].worst_beyond, 2.5);
}

TEST(Accuracy, ReachIsTheLastPositionBeforeTheFirstBeyond) {
  const ImplReport i = by_hand();
  const auto& bf16 = i.ulps_by_position.at(ROPECHECK_DTYPE_BF16);
  const Reach one = reach_within(bf16, 1);
  EXPECT_EQ(one.holds, 100);
  EXPECT_EQ(one.beyond, 2000);
  EXPECT_DOUBLE_EQ(one.beyond_ulps, 1.25);
  EXPECT_EQ(one.beyond_case, 3);
  EXPECT_EQ(reach_text(one), "100 (2^6.6)");
  const Reach four = reach_within(bf16, 4);
  EXPECT_EQ(four.holds, 2000);
  EXPECT_EQ(four.beyond, 70000);
  const Reach all = reach_within(bf16, 8);
  EXPECT_EQ(all.holds, 70000);
  EXPECT_EQ(all.beyond, -1);
  const Reach none = reach_within(i.ulps_by_position.at(ROPECHECK_DTYPE_F32), 1);
  EXPECT_EQ(none.holds, -1);
  EXPECT_EQ(reach_text(none), "none");
}

const ImplReport& impl_named(const GateReport& r, const std::string& name) {
  for (const ImplReport& i : r.impls)
    if (i.name == name) return i;
  ADD_FAILURE() << "no " << name;
  return r.impls.front();
}

// scalar_naive forms its angle p w in fp32 (rounding it costs up to half an
// fp32 ulp of p w: at p w near 1000, 2^-15 rad, hundreds of fp32 ulps of
// the pair), scalar_complex in f64. Both pass, each within the budget of
// the policy it declares, so the verdict does not tell them apart; the error
// beyond the final rounding does.
TEST(Accuracy, TellsApartTwoKernelsThatBothPass) {
  std::vector<const ropecheck_impl_t*> impls;
  for (const char* name : {"scalar_naive", "scalar_complex"})
    for (const ropecheck_impl_t* i : builtin_impls())
      if (std::string(i->name) == name) impls.push_back(i);
  ASSERT_EQ(impls.size(), 2u);
  const GateRun g = run_quick_gate(impls, 8, {"ConformsToReference"});
  ASSERT_TRUE(g.report.passed()) << g.text;
  auto f32_below_2_10 = [&](const char* name) {
    for (const DtypeAccuracy& d : accuracy_by_dtype(impl_named(g.report, name)))
      if (d.dtype == ROPECHECK_DTYPE_F32) return d.ranges[0];
    ADD_FAILURE() << name << " judged in no f32 case";
    return RangeAccuracy{};
  };
  const RangeAccuracy naive = f32_below_2_10("scalar_naive"), complex = f32_below_2_10("scalar_complex");
  ASSERT_GT(naive.positions, 10) << g.text;
  EXPECT_GT(naive.worst_beyond, 16) << g.text;
  EXPECT_LT(complex.worst_beyond, 2) << g.text;
  // The summary's accuracy table says so too.
  EXPECT_NE(g.text.find("### Accuracy by position range"), std::string::npos);
}

}  // namespace
}  // namespace ropecheck
