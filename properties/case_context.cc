// SPDX-License-Identifier: MIT
// What the properties share per case: its inputs, exact result, budget tables and base run, made once.
#include "properties/property.h"

#include "core/kernel/call_twice.h"
#include "properties/property_helpers.h"

namespace ropecheck::prop {

const QkBuffers& CaseContext::inputs() {
  if (!in_) in_ = make_inputs(c_);
  return *in_;
}

const ReferenceResult& CaseContext::reference() {
  if (!ref_) ref_ = compute_reference(c_, inputs());
  return *ref_;
}

const BudgetTable& CaseContext::budgets(const ropecheck_impl_t& impl) {
  ModelChoice m = model_choice(impl, c_);
  for (const auto& [choice, table] : budgets_)
    if (choice == m) return *table;
  const ReferenceResult& ref = reference();
  auto table = std::make_unique<BudgetTable>(budget_table(case_error_model(m, c_, ref.attention_factor), ref));
  budgets_.emplace_back(std::move(m), std::move(table));
  return *budgets_.back().second;
}

const ElementBudgets& CaseContext::element_budgets(const ropecheck_impl_t& impl) {
  ModelChoice m = model_choice(impl, c_);
  for (const auto& [choice, eb] : element_budgets_)
    if (choice == m) return *eb;
  auto eb = std::make_unique<ElementBudgets>(prop::element_budgets(impl, c_, reference(), &budgets(impl)));
  element_budgets_.emplace_back(std::move(m), std::move(eb));
  return *element_budgets_.back().second;
}

const KernelRun& CaseContext::base_run(const ropecheck_impl_t& impl) {
  if (run_of_ != &impl || !run_) {
    run_.reset();  // one implementation's buffers at a time
    run_ = call_kernel_twice(impl, c_, inputs());
    run_of_ = &impl;
  }
  return *run_;
}

CaseContext& CaseContext::derived(const std::string& key, const std::function<CaseContext()>& make) {
  for (const auto& [k, ctx] : derived_)
    if (k == key) return *ctx;
  derived_.emplace_back(key, std::make_unique<CaseContext>(make()));
  return *derived_.back().second;
}

}  // namespace ropecheck::prop
