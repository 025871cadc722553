// SPDX-License-Identifier: MIT
// The parts of the gate's report a kernel author acts on: the worst failing
// case of each family (not the first in case order), how tight each budget
// term is (slack), and up to which position a kernel stays within a number
// of ulps the user names.
#include <cmath>
#include <cstdio>
#include <ostream>

#include "gate/accuracy.h"
#include "gate/gate.h"
#include "gate/gate_tables.h"
#include "core/report/report_text.h"
#include "properties/property.h"
#include "ropecheck/names.h"

namespace ropecheck {

void print_worst_failures(const GateReport& r, std::ostream& os) {
  for (const auto& i : r.impls) {
    std::map<std::string, const FailureRecord*> worst;  // per family
    for (const FailureRecord& f : i.failures) {
      const FailureRecord*& w = worst[f.family];
      if (!w || f.worst_units > w->worst_units) w = &f;
    }
    for (const auto& [family, f] : worst)
      os << "WORST " << i.name << " " << family << ": case " << f->case_index << ", " << f->property << ", "
         << format_number(f->worst_units) << " budgets: " << f->message.substr(0, 300) << "\n  reproduce: "
         << f->reproduce << "\n";
  }
}

std::vector<ReportTable> slack_tables(const GateReport& r) {
  ReportTable t("slack", "Slack: worst error / budget where each budget term dominates",
      "Each element's budget is a sum of terms (docs/ERROR_MODEL.md); a column gives the worst error / budget "
      "over the elements whose largest term it is, and their count. Below 0.25 the term is loose there.");
  t.add_column("implementation");
  for (int k = 0; k < kBudgetTermCount; ++k) t.add_column(budget_term_name(k), true);
  for (const auto& i : r.impls) {
    std::vector<std::string> row{i.name};
    for (int k = 0; k < kBudgetTermCount; ++k)
      row.push_back(i.elements_by_term[k] == 0 ? "-"
                                               : format_number(i.worst_by_term[k], "%.3f") + " (" +
                                                     std::to_string(i.elements_by_term[k]) + ")");
    t.rows.push_back(std::move(row));
  }
  // The fused parts' budgets (ABI 1.4, 1.5), judged by their own properties:
  // E9, the cache write's |written - exact scaled| over its radius plus half
  // a step; the fused norm's whole budget (the rotation's and E10 carried).
  ReportTable f;
  f.id = "fused-slack";
  f.add_column("implementation");
  f.add_column("fused budget");
  f.add_column("worst error / budget", true);
  f.add_column("cases judged", true);
  for (const auto& i : r.impls)
    for (const auto& [name, s] : i.properties) {
      const prop::Property* p = prop::find_property(name);
      const char* what = p ? p->fused_budget : nullptr;
      if (what == nullptr || s.passed + s.failed == 0) continue;
      f.rows.push_back({i.name, std::string(what) + " (" + name + ")", format_number(s.worst_units, "%.3f"),
                        std::to_string(s.passed + s.failed)});
    }
  return {t, f};
}

void print_slack(const GateReport& r, std::ostream& os) {
  const std::vector<ReportTable> tables = slack_tables(r);
  write_markdown(tables[0], os);
  os << "\n";
  if (!tables[1].rows.empty()) {
    write_markdown(tables[1], os);
    os << "\n";
  }
}

ReportTable within_table(const GateReport& r, double ulps) {
  ReportTable t("within-" + format_number(ulps), "Within " + format_number(ulps) + " ulps of the exact result",
      "Ulps of the storage dtype at each pair's magnitude m sqrt(x^2 + y^2): the largest |position| up to which "
      "every tested element stays within them, and the first tested position beyond.");
  t.add_column("implementation");
  t.add_column("dtype");
  t.add_column("holds up to", true);
  t.add_column("first beyond", true);
  t.add_column("its error (ulps)", true);
  t.add_column("reproduce", false, true);
  for (const auto& i : r.impls)
    for (const auto& [dtype, by_position] : i.ulps_by_position) {
      const Reach reach = reach_within(by_position, ulps);
      std::vector<std::string> row{i.name, std::string(dtype_name(static_cast<ropecheck_dtype_t>(dtype))),
                                   reach_text(reach)};
      if (reach.beyond >= 0)
        for (std::string cell : {std::to_string(reach.beyond), format_number(reach.beyond_ulps),
                                 r.reproduce_environment + reproduce_command(r, i.name, reach.beyond_case) + i.reproduce_args})
          row.push_back(std::move(cell));
      else
        row.insert(row.end(), {"-", "-", "-"});
      t.rows.push_back(std::move(row));
    }
  return t;
}

void print_within(const GateReport& r, double ulps, std::ostream& os) {
  write_markdown(within_table(r, ulps), os);
  os << "\n";
}

}  // namespace ropecheck
