// SPDX-License-Identifier: MIT
// The budget of every rotated element of a reference result under one
// kernel's error model, in the reference's walk order (ReferenceResult::
// for_each_pair: judged token, head, pair; two elements per pair). It
// depends on the case, its inputs and the declared policy only, never on
// what a kernel computed: the gate works it out once per case and model
// and every implementation declaring that model, and every property
// budgeting that case, reads it (properties/property.h, CaseContext).
#ifndef ROPECHECK_CORE_JUDGE_BUDGET_TABLE_H_
#define ROPECHECK_CORE_JUDGE_BUDGET_TABLE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/cases/cases.h"
#include "core/error_model/error_model.h"
#include "core/judge/reference_result.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/policy.h"

namespace ropecheck {

struct BudgetTable {
  // Per tensor (q, k), per element in walk order (pair k: 2k, 2k + 1):
  // ErrorModel::terms(e).total() and dominant_term() of those terms.
  std::array<std::vector<double>, 2> budget;
  std::array<std::vector<std::uint8_t>, 2> dominant;
  // Per pair in walk order: ErrorModel::pair_budget, pair_budget_excluding_angle
  // and |(x, y)| (hypot, the pair's input norm).
  std::array<std::vector<double>, 2> pair, pair_no_angle, norm;
};
BudgetTable budget_table(const ErrorModel& model, const ReferenceResult& ref);
// Throws std::logic_error unless `t` has an entry for every rotated element
// of `ref` (a table of another case handed to the judge is ropecheck's bug).
void check_budget_table(const BudgetTable& t, const ReferenceResult& ref);

// Which error model a kernel's table gets on a case (case_error_model):
// its declared policy, and the dtype of the cos/sin cache the case hands it
// when it reads the caller's (ABI 1.6). Two kernels with equal choices on
// one case are budgeted alike.
struct ModelChoice {
  Policy policy;
  std::optional<ropecheck_dtype_t> caller_cache;
  bool operator==(const ModelChoice& o) const;
};
ModelChoice model_choice(const ropecheck_impl_t& impl, const Case& c);
ErrorModel case_error_model(const ModelChoice& m, const Case& c, double attention_factor);
// The same for a kernel's table: case_error_model(model_choice(impl, c), ...).
ErrorModel case_error_model(const ropecheck_impl_t& impl, const Case& c, double attention_factor);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_JUDGE_BUDGET_TABLE_H_
