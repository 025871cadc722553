// SPDX-License-Identifier: MIT
// `ropecheck check --policies`: the definitions of cli/policies_report.h.
#include "cli/policies_report.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/isolation/interrupt.h"
#include "core/kernel/impl_validation.h"
#include "golden/catalog/catalog.h"
#include "properties/property.h"

namespace ropecheck::cli {
namespace {

struct PolicyRow {
  std::string policy;
  std::optional<bool> passed;  // nullopt: not tried (why_not)
  double worst = 0, mean = 0;
  int judged = 0, failed = 0;
  std::string why_not;
};

// The catalogue in POLICIES order: the golden catalog's, then the declared.
std::vector<golden::BudgetPolicy> policy_catalogue() {
  std::vector<golden::BudgetPolicy> v(golden::budget_policies().begin(), golden::budget_policies().end());
  v.insert(v.end(), golden::declared_policies().begin(), golden::declared_policies().end());
  return v;
}

// One kernel under one policy: a copy of its table declaring it (the copy's
// apply and ctx are the kernel's, isolated or not).
PolicyRow judge_under(const GateOptions& base, const ropecheck_impl_t& impl, const golden::BudgetPolicy& p) {
  PolicyRow row;
  row.policy = p.name;
  ropecheck_impl_t t = impl;
  t.policy = p.policy.base;
  t.policy_ext = p.policy.ext;
  t.policy_ext2 = p.policy.ext2;
  if (const std::string bad = validate_impl_table(&t); !bad.empty()) {
    row.why_not = bad;
    return row;
  }
  GateOptions o = base;
  o.impls = {&t};
  o.properties = {prop::kConformanceProperty};
  o.progress = nullptr;
  const GateReport r = run_gate(o);
  const ImplReport& rep = r.impls.at(0);
  double sum = 0;
  std::int64_t elements = 0;
  for (const auto& [family, f] : rep.families) {
    if (f.cases <= f.skipped) continue;
    row.judged += f.cases - f.skipped;
    row.failed += f.failed;
    row.worst = std::max(row.worst, f.worst_units);
    sum += f.sum_units;
    elements += f.units_elements;
  }
  row.mean = elements ? sum / static_cast<double>(elements) : 0.0;
  row.passed = r.passed();
  if (row.judged == 0) row.why_not = "no case judged";
  return row;
}

std::string budget_units(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

}  // namespace

int run_policies(const GateOptions& base, std::ostream& out) {
  bool every_kernel_fits = true;
  for (const ropecheck_impl_t* impl : base.impls) {
    std::vector<PolicyRow> rows;
    for (const golden::BudgetPolicy& p : policy_catalogue()) {
      rows.push_back(judge_under(base, *impl, p));
      if (interrupt_signal()) return interrupted_exit_code();
    }
    const PolicyRow* declare = nullptr;
    for (const PolicyRow& r : rows)
      // The most of its budgets filled on average (the worst element fills
      // nearly the whole budget under every passing policy); the catalogue
      // lists the tighter first, which keeps a tie.
      if (r.passed.value_or(false) && r.judged > 0 && (declare == nullptr || r.mean > declare->mean)) declare = &r;
    every_kernel_fits &= declare != nullptr;
    out << "\n" << impl->name << " under every catalogue policy (conformance; worst error in that policy's "
        << "budget units, pass <= 1; the mean over every element judged):\n\n"
        << "| policy | verdict | judged | failed | worst error / budget | mean error / budget |\n"
        << "|---|---|---:|---:|---:|---:|\n";
    for (const PolicyRow& r : rows) {
      std::string verdict = !r.passed ? "not tried: " + r.why_not : *r.passed ? "pass" : "FAIL";
      if (&r == declare) verdict += " (declare this one)";
      out << "| " << r.policy << " | " << verdict << " | " << r.judged << " | " << r.failed << " | "
          << (r.passed && r.judged ? budget_units(r.worst) : "-") << " | "
          << (r.passed && r.judged ? budget_units(r.mean) : "-") << " |\n";
    }
    out << (declare ? "\nThe tightest passing policy, " + std::string(declare->policy) +
                          ", is the one to declare: a looser one passes too, with room for a real bug in its slack.\n"
                    : std::string("\nNo catalogue policy passes: the kernel's arithmetic is outside the catalogue, "
                                  "or a bug (see `ropecheck check` under its declared policy).\n"));
  }
  return every_kernel_fits ? 0 : 1;
}

}  // namespace ropecheck::cli
