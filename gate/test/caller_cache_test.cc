// A cos/sin cache passed in by the caller (ABI 1.6): scalar_caller_cache
// passes the quick gate in every cache dtype it declares (fp32 and the
// activation dtype), each judged on cases of its own (the report's fused
// table); run in ropecheck's own process, a kernel that writes into the
// cache is named for it (isolation's copies are checked by isolation).
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "core/cases/cos_sin_cache_case.h"
#include "core/kernel/impl_validation.h"
#include "core/kernel/kernel_call.h"
#include "gate/test/gate_run.h"
#include "impls/registry.h"
#include "mutants/mutant_kernel.h"
#include "properties/property.h"

namespace ropecheck {
namespace {

TEST(CallerCosSinCache, TheScalarKernelPassesInEveryDtypeItDeclares) {
  const ropecheck_impl_t* k = find_impl("scalar_caller_cache");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(validate_impl_table(k), "");
  const GateRun g = run_quick_gate({k}, std::nullopt, {"ConformsToReference", "RefusesPositionsBeyondTheCache"});
  EXPECT_TRUE(g.report.passed()) << g.text;
  const ImplReport& r = g.report.impls[0];
  EXPECT_GT(property_stats(r, "RefusesPositionsBeyondTheCache").passed, 20) << g.text;
  int judged = 0;
  for (const char* dtype : {"f32", "f16", "bf16"}) {
    const std::string form = std::string("caller's cos/sin cache ") + dtype + " (ABI 1.6)";
    const auto f = r.fused.find(form);
    ASSERT_NE(f, r.fused.end()) << form << "\n" << g.text;
    EXPECT_EQ(f->second.failed, 0) << form;
    EXPECT_GT(f->second.passed, 4) << form << " judged on too few cases";
    judged += f->second.passed;
  }
  EXPECT_EQ(judged, property_stats(r, "ConformsToReference").passed);
  std::cout << g.text;
}

TEST(CallerCosSinCache, AKernelInThisProcessWritingIntoItIsNamed) {
  const ropecheck_impl_t* k = mutant::find_mutant("mutant_cos_sin_cache_downcast_in_place");
  ASSERT_NE(k, nullptr);
  for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    // bf16/fp16 q given an fp32 cache: the one the mutant rounds in place.
    if (c.dtype == ROPECHECK_DTYPE_F32 || !outside_capabilities(*k, c).empty() ||
        caller_cache_dtype(c, k->cos_sin_cache_dtypes) != ROPECHECK_DTYPE_F32)
      continue;
    prop::CaseContext ctx(c);
    const KernelRun run = call_kernel(*k, c, ctx.inputs());
    EXPECT_NE(run.misbehaviour.find("wrote into its input cos_sin_cache (the caller's, f32)"), std::string::npos)
        << run.misbehaviour;
    return;
  }
  FAIL() << "no quick case gives a bf16/fp16 kernel an fp32 cache";
}

}  // namespace
}  // namespace ropecheck
