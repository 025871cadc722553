// SPDX-License-Identifier: MIT
// Invariants every RoPE implementation must satisfy, each a function of
// (implementation, case). The same definitions run under RapidCheck (random
// cases that shrink to a minimal counterexample) and in the gate (the
// deterministic suites, with a reproduce line per failure).
#ifndef ROPECHECK_PROPERTIES_PROPERTY_H_
#define ROPECHECK_PROPERTIES_PROPERTY_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/budget_table.h"
#include "core/judge/judge.h"
#include "core/judge/reference_result.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::prop {

struct PropertyResult {
  Outcome outcome = Outcome::kPass;
  std::string message;     // why it failed or was skipped
  double worst_units = 0;  // worst observed error / its budget (pass <= 1)
  // The judge's full outcome, for a property that judged the kernel against
  // the reference on the case itself: the gate's per-family and
  // per-position tables are built from it.
  std::optional<CaseOutcome> judged;
  // Skipped because the case lies outside the implementation's declared
  // capabilities (not because the case gives the property nothing to check):
  // what the gate's floor of judged cases counts against.
  bool declined = false;
  static PropertyResult skip(std::string why) { return {Outcome::kSkipped, std::move(why), 0, {}}; }
  static PropertyResult decline(std::string why) {
    PropertyResult r = skip(std::move(why));
    r.declined = true;
    return r;
  }
  static PropertyResult fail(std::string why, double units = HUGE_VAL) {
    return {Outcome::kFail, std::move(why), units, {}};
  }
};

// Exact value and budget of every storage element of one case, indexed by
// storage offset (0 budget for elements that are not rotated: they must
// match exactly), under one error model.
struct ElementBudgets {
  std::array<std::vector<double>, 2> value, budget;
  // Rotation-invariant pair bounds (ErrorModel::pair_budget*), stored at
  // both elements' offsets of the pair.
  std::array<std::vector<double>, 2> pair_budget, pair_budget_no_angle;
  double attention_factor = 1;
};

// One case as every property sees it: its inputs, its exact result and
// the budgets of that result under each error model the implementations
// declare are built once, on first use, and shared by all properties and
// implementations that run on the case.
class CaseContext {
 public:
  explicit CaseContext(Case c) : c_(std::move(c)) { c_.cache_rows = c_.cos_sin_cache_rows(); }
  // A case given with its inputs (a derived case: derived()).
  CaseContext(Case c, QkBuffers in) : c_(std::move(c)), in_(std::move(in)) { c_.cache_rows = c_.cos_sin_cache_rows(); }
  const Case& spec() const { return c_; }
  const QkBuffers& inputs();
  const ReferenceResult& reference();
  // budget_table of reference() under impl's error model (model_choice):
  // one per distinct model, whichever implementation asks first.
  const BudgetTable& budgets(const ropecheck_impl_t& impl);
  // The same budgets per element (element_budgets in property_helpers.h),
  // kept per model too: the properties that judge pairs ask for them once per
  // implementation, and building them was 3% of a quick gate.
  const ElementBudgets& element_budgets(const ropecheck_impl_t& impl);
  // A variant of this case with inputs of its own that a property derives
  // the same way for every implementation (other positions, a probe input,
  // another layout): made by `make` on first use under `key` (the property
  // and the variant's role), then shared like this case, reference and
  // budgets included. `make` may depend on this case only, never on what a
  // kernel computed.
  CaseContext& derived(const std::string& key, const std::function<CaseContext()>& make);
  // The implementation's run on this case and its inputs, made once by the
  // first property that asks (call_kernel_twice: two calls, each with other
  // buffers and another poison, must give the same bits, or the run carries
  // the misbehaviour) and read by every property that calls the kernel on
  // the case itself. Kept for one implementation at a time (the gate runs
  // a case's properties implementation by implementation).
  const KernelRun& base_run(const ropecheck_impl_t& impl);

 private:
  Case c_;
  std::optional<QkBuffers> in_;
  std::optional<ReferenceResult> ref_;
  std::vector<std::pair<ModelChoice, std::unique_ptr<BudgetTable>>> budgets_;
  std::vector<std::pair<ModelChoice, std::unique_ptr<ElementBudgets>>> element_budgets_;
  std::vector<std::pair<std::string, std::unique_ptr<CaseContext>>> derived_;
  const ropecheck_impl_t* run_of_ = nullptr;
  std::optional<KernelRun> run_;
};

struct Property {
  const char* name;     // reads as a sentence after "Rope/": PreservesPairNorm
  const char* summary;  // one line: what it checks and why it matters
  PropertyResult (*check)(const ropecheck_impl_t& impl, CaseContext& ctx);
  // Capability flags and layouts the property needs at all (e.g. both
  // layouts for layout equivariance); an implementation without them is
  // reported as not applicable rather than run.
  std::uint32_t needs_flags = 0;
  std::uint32_t needs_layouts = 0;
  // Runs on cases with more than kLargeCase rotated elements too (the size
  // classes long prefill, decode and many heads reach that). The others
  // derive several cases and reference results per case, so they are run on
  // the smaller cases only and report a large one as skipped, naming the
  // properties that judge it.
  bool large_cases = false;
  // At least one of these capability flags (0: none needed): the
  // multi-axis properties apply to a kernel granting any multi-axis form,
  // the cache bound check to one reading a cache of its own or the
  // caller's (ABI 1.6).
  std::uint32_t needs_any_flags = 0;
  // For a property judging a fused part (properties/fused_forms.h): the form
  // a case gives that part of a kernel, the row of the gate's fused table it
  // counts in; "" (or none) for the others.
  std::string (*fused_form)(const ropecheck_impl_t& impl, const Case& c) = nullptr;
  // For a property whose worst error / budget measures a fused part's own
  // budget (docs/ERROR_MODEL.md): that budget in words, the row the gate's
  // fused slack table gives it; nullptr for the others.
  const char* fused_budget = nullptr;
};

// The property every kernel is judged by first (kernel_properties()[0]).
inline constexpr const char* kConformanceProperty = "ConformsToReference";

inline constexpr std::int64_t kLargeCase = std::int64_t{1} << 14;

// p.check, or a skip when the case is too large for p (large_cases).
PropertyResult run_property(const Property& p, const ropecheck_impl_t& impl, CaseContext& ctx);

// Empty when the property applies to the implementation, else why not.
std::string not_applicable(const Property& p, const ropecheck_impl_t& impl);

// Every kernel property, conformance first.
std::span<const Property> kernel_properties();
const Property* find_property(std::string_view name);

}  // namespace ropecheck::prop

#endif  // ROPECHECK_PROPERTIES_PROPERTY_H_
