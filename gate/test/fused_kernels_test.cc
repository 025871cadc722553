// The rotation fused with a KV-cache write (ABI 1.4, impls/scalar/
// fused_kv_write.cc): both arithmetics the engines ship pass the quick gate
// under what they declare, their cache properties judged on most cases and
// every cache dtype; the same kernel declaring the other scale direction, or
// no saturation, fails CachesTheRotatedKAndV (the declaration is judged, not
// only the values).
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <string>

#include "core/kernel/impl_validation.h"
#include "gate/test/gate_run.h"
#include "impls/registry.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck {
namespace {

TEST(FusedKernels, PassTheQuickGateWithTheirCacheWritesJudged) {
  const ropecheck_impl_t* vllm = find_impl("scalar_fused_kv_vllm");
  const ropecheck_impl_t* flashinfer = find_impl("scalar_fused_kv_flashinfer");
  ASSERT_NE(vllm, nullptr);
  ASSERT_NE(flashinfer, nullptr);
  EXPECT_EQ(validate_impl_table(vllm), "");
  EXPECT_EQ(validate_impl_table(flashinfer), "");
  const GateRun g = run_quick_gate({vllm, flashinfer});
  EXPECT_TRUE(g.report.passed()) << g.text;
  for (const ImplReport& r : g.report.impls) {
    for (const char* p : {"CachesTheRotatedKAndV", "LeavesTheRestOfTheCacheUnchanged"}) {
      const PropertyStats& s = property_stats(r, p);
      EXPECT_EQ(s.failed, 0) << r.name << " " << p;
      // Every small case with a k carries a write: most of the suite.
      EXPECT_GT(s.passed, suite_size(Suite::kQuick) / 3) << r.name << " " << p << " judged too few cases";
    }
    // The report's fused table: a row per cache form, fp8 among them, each
    // passed, and its counts those of the cache property.
    int judged = 0;
    bool fp8 = false;
    for (const auto& [form, f] : r.fused) {
      EXPECT_EQ(f.failed, 0) << r.name << " " << form;
      judged += f.passed;
      fp8 |= form.find("fp8_e4m3fn") != std::string::npos || form.find("e4m3") != std::string::npos;
    }
    EXPECT_GT(r.fused.size(), 3u) << g.text;
    EXPECT_TRUE(fp8) << g.text;
    EXPECT_EQ(judged, property_stats(r, "CachesTheRotatedKAndV").passed) << g.text;
  }
  EXPECT_NE(g.text.find("### Fused operations"), std::string::npos);
  std::cout << g.text;
}

TEST(FusedKernels, ADeclarationOtherThanTheArithmeticFails) {
  const ropecheck_impl_t* vllm = find_impl("scalar_fused_kv_vllm");
  ASSERT_NE(vllm, nullptr);
  ropecheck_impl_t multiply = *vllm;  // divides, declared as multiplying
  multiply.name = "vllm_declared_multiply";
  multiply.kv_policy.scale_direction = ROPECHECK_KV_SCALE_MULTIPLY;
  ropecheck_impl_t fp32 = *vllm;  // scales the stored k, declared as scaling the fp32 one
  fp32.name = "vllm_declared_not_via_storage";
  fp32.kv_policy.via_storage = 0;
  ASSERT_EQ(validate_impl_table(&multiply), "");
  const GateRun g = run_quick_gate({&multiply, &fp32});
  ASSERT_EQ(g.report.impls.size(), 2u);
  EXPECT_GT(property_stats(g.report.impls[0], "CachesTheRotatedKAndV").failed, 0) << g.text;
  // The store to bf16/fp16 before the scale is one rounding the declared
  // fp32 path does not have: caught wherever it moves the value across a
  // rounding boundary of the cache dtype (about 6% of e4m3fn elements of a
  // bf16 k), so on some case of the suite.
  EXPECT_GT(property_stats(g.report.impls[1], "CachesTheRotatedKAndV").failed, 0) << g.text;
}

// The slot mapping's permutation (Rope/PermutingSlotsPermutesTheCache)
// kills a kernel the other cache properties pass: a prefill path that
// writes ascending slots as one contiguous run. Their one random mapping per
// case ascends only for a few tokens, under the path's threshold; the
// permutation hands the same slots out ascending, with the holes between
// blocks a paged cache has.
TEST(FusedKernels, AContiguousPrefillPathDiesOnlyByTheSlotPermutation) {
  const ropecheck_impl_t* k = mutant::find_mutant("mutant_kv_contiguous_prefill_slots");
  ASSERT_NE(k, nullptr);
  const GateRun others = run_quick_gate({k}, std::nullopt, {"CachesTheRotatedKAndV", "LeavesTheRestOfTheCacheUnchanged"});
  EXPECT_TRUE(others.report.passed()) << others.text;
  EXPECT_GT(property_stats(others.report.impls[0], "CachesTheRotatedKAndV").passed, suite_size(Suite::kQuick) / 3);
  const GateRun permuted = run_quick_gate({k}, std::nullopt, {"PermutingSlotsPermutesTheCache"});
  EXPECT_GT(property_stats(permuted.report.impls[0], "PermutingSlotsPermutesTheCache").failed, 0) << permuted.text;
}

}  // namespace
}  // namespace ropecheck
