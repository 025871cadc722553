// SPDX-License-Identifier: MIT
// The conformance verdict on a case and the verdict floor on a run.
#include "core/judge/conformance.h"

#include "core/kernel/call_twice.h"

namespace ropecheck {

CaseOutcome judge_conformance(const ropecheck_impl_t& impl, const JudgedCase& j,
                              const std::function<const BudgetTable*()>& budgets,
                              const std::function<const KernelRun&()>& run) {
  if (std::string why = outside_capabilities(impl, j.c); !why.empty()) {
    CaseOutcome out;
    out.outcome = Outcome::kSkipped;
    out.message = "outside capabilities: " + why;
    return out;
  }
  std::optional<KernelRun> own;
  const KernelRun& r = run ? run() : own.emplace(call_kernel_twice(impl, j.c, j.in));
  return judge(impl, j, r, budgets ? budgets() : nullptr);
}

std::string verdict_floor_failure(const JudgedCount& n, int min_judged) {
  if (n.judged >= min_judged || (n.judged == 0 && n.declined == 0)) return {};
  return "judged on " + std::to_string(n.judged) + " case(s), fewer than --min-judged " + std::to_string(min_judged) +
         " (" + std::to_string(n.declined) + " of " + std::to_string(n.cases) +
         " outside its declared capabilities or declined by it" + n.skipped_for + "): no verdict to pass";
}

}  // namespace ropecheck
