// SPDX-License-Identifier: MIT
// The policy kernels (impls/policy/): each computes RoPE the way a real
// kernel does and declares that arithmetic; each passes the quick gate under
// its declared policy, with the cases outside its declared capabilities
// skipped and counted. Their variants with one more rounding than declared
// are rows of the bug catalogue (mutant_catalogue_test.cc).
#include <gtest/gtest.h>

#include <iostream>

#include "core/kernel/impl_validation.h"
#include "gate/test/gate_run.h"
#include "impls/policy/policy_kernel.h"
#include "impls/registry.h"

namespace ropecheck {
namespace {

TEST(PolicyKernels, AreRegisteredOutsideTheDefaultSetAndValidate) {
  for (const ropecheck_impl_t* t : impl::policy_kernel_impls()) {
    EXPECT_EQ(validate_impl_table(t), "") << t->name;
    const RegisteredImpl* r = find_registered(t->name);
    ASSERT_NE(r, nullptr) << t->name;
    EXPECT_FALSE(r->default_set) << t->name;
  }
}

TEST(PolicyKernels, EachPassesTheQuickSuiteUnderItsDeclaredPolicy) {
  const auto impls = impl::policy_kernel_impls();
  const GateRun g = run_quick_gate({impls.begin(), impls.end()});
  EXPECT_TRUE(g.report.passed()) << g.text;
  for (const auto& i : g.report.impls) {
    int judged = 0;
    for (const auto& [family, f] : i.families) judged += f.passed + f.failed;
    // ggml forms 7 of the 8 schemes (not explicit): a quarter of the suite at least.
    EXPECT_GT(judged, suite_size(Suite::kQuick) / 4) << i.name << " ran too few cases";
  }
  std::cout << g.text;
}

}  // namespace
}  // namespace ropecheck
