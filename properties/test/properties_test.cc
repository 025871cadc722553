// Runs every kernel property against every registered implementation under
// RapidCheck: one gtest per pair, named as a sentence,
// Rope/<Property>.<implementation>. A failure prints the shrunk case and the
// RapidCheck seed; RC_PARAMS="seed=..." reproduces it (and max_success=N
// scales the number of cases).
#include <gtest/gtest.h>

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "properties/test/rapidcheck_cases.h"
#include "ropecheck/axes.h"
#include "ropecheck/dtype.h"
#include "properties/property.h"
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
