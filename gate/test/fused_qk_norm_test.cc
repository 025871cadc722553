// SPDX-License-Identifier: MIT
// The rotation fused with the per-head qk-norm (ABI 1.5, impls/scalar/
// fused_qk_norm.cc): each of the engines' three arithmetics passes
// NormalisesEachHeadThenRotates under what it declares, judged on most
// small cases; a kernel rounding to the activation dtype that declares its
// norm kept in fp32 fails (the declaration is judged, not only the values);
// a bound on the positions is a skip counted by reason.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "core/kernel/impl_validation.h"
#include "gate/test/gate_run.h"
#include "impls/registry.h"

namespace ropecheck {
namespace {

TEST(FusedQkNorm, TheEnginesArithmeticsPassUnderWhatTheyDeclare) {
  std::vector<const ropecheck_impl_t*> impls;
  for (const char* name : {"scalar_fused_qk_norm_vllm", "scalar_fused_qk_norm_qwen3", "scalar_fused_qk_norm_gemma"}) {
    const ropecheck_impl_t* t = find_impl(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(validate_impl_table(t), "") << name;
    impls.push_back(t);
  }
  const GateRun g = run_quick_gate(impls, std::nullopt, {"NormalisesEachHeadThenRotates"});
  EXPECT_TRUE(g.report.passed()) << g.text;
  for (const ImplReport& r : g.report.impls) {
    const PropertyStats& s = property_stats(r, "NormalisesEachHeadThenRotates");
    EXPECT_EQ(s.failed, 0) << r.name;
    EXPECT_GT(s.passed, suite_size(Suite::kQuick) / 3) << r.name << " judged too few cases";
  }
  std::cout << g.text;
}

TEST(FusedQkNorm, RoundingToTheActivationDtypeDeclaredAsFp32Fails) {
  ropecheck_impl_t qwen3 = *find_impl("scalar_fused_qk_norm_qwen3");
  qwen3.name = "qwen3_declared_fp32";
  qwen3.norm_policy.intermediate = ROPECHECK_NORM_KEEP_F32;
  ropecheck_impl_t gemma = *find_impl("scalar_fused_qk_norm_gemma");
  gemma.name = "gemma_declared_fp32";
  gemma.norm_policy.intermediate = ROPECHECK_NORM_KEEP_F32;
  ASSERT_EQ(validate_impl_table(&qwen3), "");
  const GateRun g = run_quick_gate({&qwen3, &gemma}, std::nullopt, {"NormalisesEachHeadThenRotates"});
  ASSERT_EQ(g.report.impls.size(), 2u);
  for (const ImplReport& r : g.report.impls)
    EXPECT_GT(property_stats(r, "NormalisesEachHeadThenRotates").failed, 0) << r.name << "\n" << g.text;
}

TEST(FusedQkNorm, PositionsPastMaxPositionAreSkippedAndCounted) {
  ropecheck_impl_t bounded = *find_impl("scalar_naive");
  bounded.name = "naive_max_position_4096";
  bounded.max_position = 4096;
  ASSERT_EQ(validate_impl_table(&bounded), "");
  GateOptions o;
  o.suite = Suite::kQuick;
  o.seed = 1;
  o.impls = {&bounded};
  o.properties = {"ConformsToReference"};
  const GateReport r = run_gate(o);
  EXPECT_TRUE(r.passed());
  const ImplReport& rep = r.impls[0];
  int skipped = 0;
  for (const auto& [why, n] : rep.skipped)
    if (why.find("max_position 4096") != std::string::npos) skipped += n;
  EXPECT_GT(skipped, 0) << "the quick suite reaches positions past 4096";
  EXPECT_GT(property_stats(rep, "ConformsToReference").passed, 0);
}

}  // namespace
}  // namespace ropecheck
