// SPDX-License-Identifier: MIT
// The budget of every rotated element of a reference result under one error model, worked out once.
#include "core/judge/budget_table.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "core/cases/cos_sin_cache_case.h"

namespace ropecheck {

BudgetTable budget_table(const ErrorModel& model, const ReferenceResult& ref) {
  BudgetTable t;
  for (std::size_t w = 0; w < 2; ++w) {
    const std::size_t pairs = ref.pairs[w].size();
    // Sized once and written by index: a push_back's capacity check per
    // value was a tenth of a table in the differential fuzzer's profile.
    double* budget = (t.budget[w].resize(2 * pairs), t.budget[w].data());
    std::uint8_t* dominant = (t.dominant[w].resize(2 * pairs), t.dominant[w].data());
    double* pair = (t.pair[w].resize(pairs), t.pair[w].data());
    double* no_angle = (t.pair_no_angle[w].resize(pairs), t.pair_no_angle[w].data());
    double* norm = (t.norm[w].resize(pairs), t.norm[w].data());
    // The angle's part of a pair's budget is the same for every head of a
    // token (ErrorModel::angle_shared): worked out at head 0, where the walk
    // (token, head, pair) meets each token's pairs first.
    std::vector<ErrorModel::AngleShared> angle(static_cast<std::size_t>(ref.geo.rotary_dim / 2));
    std::size_t k = 0;  // the pair's place in walk order
    ref.for_each_pair(static_cast<int>(w), [&](const ReferenceResult::PairElements& pe) {
      ErrorModel::AngleShared& a = angle[static_cast<std::size_t>(pe.pair)];
      if (pe.head == 0) a = model.angle_shared(pe.terms[0]);
      const ErrorModel::PairBudgets b = model.pair_budgets(pe.terms, a);
      for (std::size_t side = 0; side < 2; ++side) {
        budget[2 * k + side] = b.terms[side].total();
        dominant[2 * k + side] = static_cast<std::uint8_t>(dominant_term(b.terms[side]));
      }
      pair[k] = b.pair;
      no_angle[k] = b.pair_no_angle;
      norm[k] = b.norm;
      ++k;
    });
  }
  return t;
}

void check_budget_table(const BudgetTable& t, const ReferenceResult& ref) {
  for (std::size_t w = 0; w < 2; ++w) {
    const std::size_t pairs = ref.pairs[w].size();
    if (t.budget[w].size() != 2 * pairs || t.dominant[w].size() != 2 * pairs || t.pair[w].size() != pairs ||
        t.pair_no_angle[w].size() != pairs || t.norm[w].size() != pairs)
      throw std::logic_error("budget table of " + std::to_string(t.pair[w].size()) + " pairs for a reference of " +
                             std::to_string(pairs) + " pairs (" + (w ? "k" : "q") + ")");
  }
}

bool ModelChoice::operator==(const ModelChoice& o) const {
  // Bits, not values: the policy's doubles are declared numbers, and two
  // that differ only in the sign of a zero are merely budgeted twice.
  return std::memcmp(&policy.base, &o.policy.base, sizeof policy.base) == 0 &&
         std::memcmp(&policy.ext, &o.policy.ext, sizeof policy.ext) == 0 &&
         std::memcmp(&policy.ext2, &o.policy.ext2, sizeof policy.ext2) == 0 && caller_cache == o.caller_cache;
}

ModelChoice model_choice(const ropecheck_impl_t& impl, const Case& c) {
  std::optional<ropecheck_dtype_t> caller_cache;
  if (impl.caps.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE)
    caller_cache = caller_cache_dtype(c, impl.cos_sin_cache_dtypes);
  return {policy_of(impl), caller_cache};
}

ErrorModel case_error_model(const ModelChoice& m, const Case& c, double attention_factor) {
  return case_error_model(m.policy, c, attention_factor, m.caller_cache);
}

ErrorModel case_error_model(const ropecheck_impl_t& impl, const Case& c, double attention_factor) {
  return case_error_model(model_choice(impl, c), c, attention_factor);
}

}  // namespace ropecheck
