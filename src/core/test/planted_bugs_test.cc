// The suite's power on known bug classes: a copy of the per-pair kernel with
// one bug planted at a time must fail the quick gate, and the same copy with
// no bug must pass it (so the failures are the bugs', not the copy's).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <vector>

#include "common/abi_check.h"
#include "common/engine_freqs.h"
#include "common/head_io.h"
#include "common/impl_table.h"
#include "ropecheck/check.h"
#include "ropecheck/properties/property.h"
#include "ropecheck/dtype.h"
#include "ropecheck/layout.h"

namespace ropecheck {
namespace {

enum class Bug { kNone, kSwappedLayout, kBf16Angle, kFp16Angle, kFlippedDirection, kPassThroughScaled };

const char* bug_name(Bug b) {
  switch (b) {
    case Bug::kNone: return "none";
    case Bug::kSwappedLayout: return "swapped_layout";
    case Bug::kBf16Angle: return "bf16_angle";
    case Bug::kFp16Angle: return "fp16_angle";
    case Bug::kFlippedDirection: return "flipped_direction";
    case Bug::kPassThroughScaled: return "pass_through_scaled";
  }
  return "?";
}

constexpr ropecheck_caps_t kCaps = impl::scalar_caps(impl::kBothLayouts, 0);

ropecheck_status_t buggy_apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  using namespace impl;
  const Bug bug = *static_cast<const Bug*>(ctx);
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const EngineFreqs<float> f = engine_frequencies<float>(*p->freq, p->rotary_dim);
  const int pairs = p->rotary_dim / 2;
  float sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  if (bug == Bug::kFlippedDirection) sign = -sign;
  unsigned layout = p->layout;
  if (bug == Bug::kSwappedLayout) layout = 1 - layout;
  std::vector<float> c(pairs), s(pairs);
  for_each_head(*p, [&](std::int64_t t) { return position_at(p, t); }, [&](const HeadRef& h) {
    for (int i = 0; i < pairs; ++i) {
      float a = static_cast<float>(h.position) * f.inv_freq[i];
      if (bug == Bug::kBf16Angle) a = bf16_to_f32(f32_to_bf16(a));
      if (bug == Bug::kFp16Angle) a = f16_to_f32(f32_to_f16(a));
      c[i] = std::cos(a) * f.attention_factor;
      s[i] = sign * std::sin(a) * f.attention_factor;
    }
    rotate_head_pairs(*p, h, layout, c.data(), s.data());
    if (bug == Bug::kPassThroughScaled && p->rotary_dim < p->head_dim) {
      const std::int64_t j = h.offset + p->rotary_dim;
      store_f32(h.out, j, p->dtype, load_f32(h.out, j, p->dtype) * 1.0009765625f);
    }
  });
  return ROPECHECK_OK;
}

CheckReport gate(Bug& bug) {
  static const ropecheck_policy_t kPolicy =
      impl::policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32);
  ropecheck_impl_t impl{sizeof(ropecheck_impl_t), ROPECHECK_ABI_VERSION, bug_name(bug),
                        "planted bug", kCaps, kPolicy, &bug, buggy_apply, nullptr, nullptr};
  CheckOptions o;
  o.suite = Suite::kQuick;
  o.seed = 1;
  o.impls = {&impl};
  return run_check(o);
}

// Properties that failed at least once, with their failed-case counts.
std::map<std::string, int> failing_properties(const CheckReport& r) {
  std::map<std::string, int> out;
  for (const auto& [name, s] : r.impls[0].properties)
    if (s.failed) out[name] = s.failed;
  return out;
}

TEST(PlantedBugs, TheUnmodifiedCopyPasses) {
  Bug bug = Bug::kNone;
  const CheckReport r = gate(bug);
  std::ostringstream os;
  print_failures(r, os);
  EXPECT_TRUE(r.passed()) << os.str();
}

// Which properties catch which bug is part of the suite's documentation
// (docs/ERROR_MODEL.md); the expectations below are the ones a property is
// designed for, the table printed shows everything that fired.
TEST(PlantedBugs, EachBugFailsTheGateThroughTheExpectedProperties) {
  struct Expect {
    Bug bug;
    std::vector<std::string> must_fail;
  };
  const Expect expects[] = {
      {Bug::kSwappedLayout, {"ConformsToReference", "IsLayoutEquivariant"}},
      {Bug::kBf16Angle, {"ConformsToReference", "DependsOnlyOnRelativePosition", "ComposesAdditively"}},
      {Bug::kFp16Angle, {"ConformsToReference", "DependsOnlyOnRelativePosition"}},
      {Bug::kFlippedDirection, {"ConformsToReference"}},
      {Bug::kPassThroughScaled, {"ConformsToReference", "KeepsPassThroughBitExact"}},
  };
  std::ostringstream table;
  table << "| planted bug | properties that fail (failed cases of " << suite_size(Suite::kQuick)
        << ", quick suite, seed 1) |\n|---|---|\n";
  for (const Expect& e : expects) {
    Bug bug = e.bug;
    const CheckReport r = gate(bug);
    const auto failing = failing_properties(r);
    for (const auto& name : e.must_fail)
      EXPECT_TRUE(failing.count(name)) << bug_name(bug) << " was not caught by " << name;
    table << "| " << bug_name(bug) << " |";
    for (const auto& [name, n] : failing) table << " " << name << " (" << n << ")";
    table << " |\n";
  }
  std::cout << table.str();
}

}  // namespace
}  // namespace ropecheck
