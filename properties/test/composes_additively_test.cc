// SPDX-License-Identifier: MIT
// ComposesAdditively judges a YaRN kernel that takes no explicit attention
// factor (NO_EXPLICIT_ATTENTION_FACTOR, as Megatron-core's and vLLM's YaRN)
// on YaRN cases: with DeepSeek's mscale equal to mscale_all_dim the derived
// factor is exactly 1 and composition holds. Before, every such case was
// skipped (the Megatron-core YaRN row fell under the gate's floor of judged
// cases). The correct kernel passes; one that rotates every token one
// position too far is caught (the composition turns a +1 into a +2).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/cases/cases.h"
#include "core/kernel/declared_capabilities.h"
#include "impls/registry.h"
#include "properties/property.h"

namespace ropecheck::prop {
namespace {

const ropecheck_impl_t* g_inner = nullptr;

// The inner kernel called with every position plus one.
ropecheck_status_t off_by_one_apply(void* state, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  ropecheck_apply_params_t shifted = *p;
  std::vector<std::int64_t> p64;
  std::vector<std::int32_t> p32;
  if (p->position_type == ROPECHECK_INDEX_INT64) {
    const auto* in = static_cast<const std::int64_t*>(p->positions);
    p64.assign(in, in + p->num_tokens);
    for (auto& v : p64) ++v;
    shifted.positions = p64.data();
  } else {
    const auto* in = static_cast<const std::int32_t*>(p->positions);
    p32.assign(in, in + p->num_tokens);
    for (auto& v : p32) ++v;
    shifted.positions = p32.data();
  }
  return g_inner->apply(state, &shifted, err, n);
}

// The first quick-suite cases with the YaRN scheme that the kernel takes,
// positions below 2^16: far beyond, an fp32 angle's budget exceeds the one
// position step the mutant adds (correctly, so the mutant is invisible there).
std::vector<Case> yarn_cases(const ropecheck_impl_t& impl, std::size_t want) {
  std::vector<Case> out;
  for (int i = 0; i < 2000 && out.size() < want; ++i) {
    Case c = make_case(Suite::kQuick, 1, i);
    bool near = true;
    for (std::int64_t pos : c.positions) near = near && pos > -(1 << 16) && pos < (1 << 16);
    if (near && c.freq.scheme == ROPECHECK_SCHEME_YARN && outside_capabilities(impl, c).empty()) out.push_back(c);
  }
  return out;
}

TEST(ComposesAdditively, JudgesYarnWithoutAnExplicitAttentionFactor) {
  g_inner = find_impl("policy_fma_storage");
  ASSERT_NE(g_inner, nullptr);
  ASSERT_TRUE(g_inner->caps.flags & ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR);
  const Property* p = find_property("ComposesAdditively");
  ASSERT_NE(p, nullptr);
  const std::vector<Case> cases = yarn_cases(*g_inner, 8);
  ASSERT_FALSE(cases.empty()) << "no YaRN case in the quick suite's first 400 takes policy_fma_storage";
  ropecheck_impl_t mutant = *g_inner;
  mutant.apply = off_by_one_apply;
  int judged = 0;
  for (const Case& c : cases) {
    // As the gate runs it (run_property: large cases are skipped).
    CaseContext ok(c);
    const PropertyResult r = run_property(*p, *g_inner, ok);
    if (r.outcome == Outcome::kSkipped) continue;
    ++judged;
    EXPECT_EQ(r.outcome, Outcome::kPass) << c.describe() << ": " << r.message;
    CaseContext bad(c);
    const PropertyResult f = run_property(*p, mutant, bad);
    EXPECT_EQ(f.outcome, Outcome::kFail) << "the off-by-one kernel passed: " << c.describe() << ": " << f.message;
  }
  EXPECT_GE(judged, 2) << "YaRN cases judged, of " << cases.size();
}

}  // namespace
}  // namespace ropecheck::prop
