// SPDX-License-Identifier: MIT
// Runs every kernel property against every registered implementation under
// RapidCheck: one gtest per pair, named as a sentence,
// Rope/<Property>.<implementation>. A failure prints the shrunk case and the
// RapidCheck seed; RC_PARAMS="seed=..." reproduces it (and max_success=N
// scales the number of cases).
#include <gtest/gtest.h>

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <stdexcept>
#include <string>

#include "properties/test/rapidcheck_cases.h"
#include "ropecheck/axes.h"
#include "ropecheck/dtype.h"
#include "properties/property.h"
#include "core/judge/budget_table.h"
#include "impls/registry.h"

namespace ropecheck {
namespace {

class PropertyTest : public ::testing::Test {
 public:
  PropertyTest(const prop::Property* p, const ropecheck_impl_t* impl) : p_(p), impl_(impl) {}
  void TestBody() override {
    const prop::Property* p = p_;
    const ropecheck_impl_t* impl = impl_;
    if (std::string why = prop::not_applicable(*p, *impl); !why.empty())
      GTEST_SKIP() << p->name << " does not apply to " << impl->name << ": " << why;
    rc::detail::checkGTest([p, impl] {
      // The multi-axis properties (those needing a multi-axis grant) draw
      // multi-axis cases only.
      const Case c = *gen_case((p->needs_any_flags & kAxisAssignmentCaps) != 0);
      prop::CaseContext ctx(c);
      const prop::PropertyResult r = prop::run_property(*p, *impl, ctx);
      if (r.outcome == Outcome::kSkipped) RC_DISCARD(r.message);
      RC_TAG(c.family());
      if (r.outcome == Outcome::kFail) RC_FAIL(r.message);
    });
  }

 private:
  const prop::Property* p_;
  const ropecheck_impl_t* impl_;
};

// What CaseContext shares across implementations: one budget table per
// error model (kernels declaring the same policy read the same one, another
// policy gets its own, equal to what element_budgets() works out alone), and
// one derived case per key, made once.
TEST(CaseContext, SharesBudgetsPerModelAndDerivedCasesPerKey) {
  const ropecheck_impl_t* naive = find_impl("scalar_naive");
  const ropecheck_impl_t* rotate_half = find_impl("scalar_rotate_half");  // the same policy
  const ropecheck_impl_t* complex = find_impl("scalar_complex");          // fp64 frequencies and angles
  ASSERT_TRUE(naive && rotate_half && complex);
  prop::CaseContext ctx(make_case(Suite::kQuick, 1, 3));
  const BudgetTable& a = ctx.budgets(*naive);
  EXPECT_EQ(&a, &ctx.budgets(*rotate_half));
  const BudgetTable& b = ctx.budgets(*complex);
  EXPECT_NE(&a, &b);
  EXPECT_NE(a.budget[0], b.budget[0]);
  const BudgetTable alone = budget_table(case_error_model(*complex, ctx.spec(), ctx.reference().attention_factor),
                                         ctx.reference());
  EXPECT_EQ(b.budget, alone.budget);
  EXPECT_EQ(b.pair, alone.pair);
  // A table is only ever read against the result it was made from.
  prop::CaseContext other(make_case(Suite::kQuick, 1, 4));
  EXPECT_THROW(check_budget_table(a, other.reference()), std::logic_error);
  EXPECT_NO_THROW(check_budget_table(a, ctx.reference()));
  int made = 0;
  auto make = [&] {
    ++made;
    Case c = ctx.spec();
    for (auto& p : c.positions) p += 5;
    return prop::CaseContext(c, ctx.inputs());
  };
  prop::CaseContext& d = ctx.derived("shifted by 5", make);
  EXPECT_EQ(&d, &ctx.derived("shifted by 5", make));
  EXPECT_EQ(made, 1);
  EXPECT_NE(&d, &ctx.derived("another", make));
  EXPECT_EQ(made, 2);
  EXPECT_EQ(d.spec().positions[0], ctx.spec().positions[0] + 5);
}

}  // namespace
}  // namespace ropecheck

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (const ropecheck::prop::Property& p : ropecheck::prop::kernel_properties()) {
    for (const ropecheck_impl_t* impl : ropecheck::builtin_impls()) {
      const std::string suite = std::string("Rope/") + p.name;
      ::testing::RegisterTest(suite.c_str(), impl->name, nullptr, nullptr, __FILE__, __LINE__,
                              [&p, impl]() -> ::testing::Test* {
                                return new ropecheck::PropertyTest(&p, impl);
                              });
    }
  }
  return RUN_ALL_TESTS();
}
