// The parts of the gate's report a kernel author acts on: the worst failing
// case of each family (not the first in case order), how tight each budget
// term is (slack), and up to which position a kernel stays within a number
// of ulps the user names.
#include <cmath>
#include <cstdio>
#include <ostream>

#include "gate/gate.h"
#include "gate/report_text.h"
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

void print_slack(const GateReport& r, std::ostream& os) {
  os << "### Slack: worst error / budget where each budget term dominates\n\n"
        "Each element's budget is a sum of terms (docs/ERROR_MODEL.md); a column gives the worst error / budget "
        "over the elements whose largest term it is, and their count. Below 0.25 the term is loose there.\n\n";
  os << "| implementation |";
  for (int t = 0; t < kBudgetTermCount; ++t) os << " " << budget_term_name(t) << " |";
  os << "\n|---|";
  for (int t = 0; t < kBudgetTermCount; ++t) os << "---:|";
  os << "\n";
  for (const auto& i : r.impls) {
    os << "| " << i.name << " |";
    for (int t = 0; t < kBudgetTermCount; ++t) {
      if (i.elements_by_term[t] == 0)
        os << " - |";
      else
        os << " " << format_number(i.worst_by_term[t], "%.3f") << " (" << i.elements_by_term[t] << ") |";
    }
    os << "\n";
  }
  os << "\n";
  // The fused parts' budgets (ABI 1.4, 1.5), judged by their own properties:
  // E9, the cache write's |written - exact scaled| over its radius plus half
  // a step; the fused norm's whole budget (the rotation's and E10 carried).
  bool header = false;
  for (const auto& i : r.impls)
    for (const auto& [name, s] : i.properties) {
      const char* what = name == "CachesTheRotatedKAndV"            ? "E9, the KV-cache write"
                         : name == "NormalisesEachHeadThenRotates" ? "E10 and the rotation, the fused qk-norm"
                                                                   : nullptr;
      if (what == nullptr || s.passed + s.failed == 0) continue;
      if (!header) {
        os << "| implementation | fused budget | worst error / budget | cases judged |\n|---|---|---:|---:|\n";
        header = true;
      }
      os << "| " << i.name << " | " << what << " (" << name << ") | " << format_number(s.worst_units, "%.3f") << " | "
         << s.passed + s.failed << " |\n";
    }
  if (header) os << "\n";
}

void print_within(const GateReport& r, double ulps, std::ostream& os) {
  os << "### Within " << format_number(ulps) << " ulps of the exact result\n\n"
        "Ulps of the storage dtype at each pair's magnitude m sqrt(x^2 + y^2): the largest |position| up to which "
        "every tested element stays within them, and the first tested position beyond.\n\n| implementation | dtype | holds up to | first beyond | its error (ulps) | reproduce |\n"
        "|---|---|---:|---:|---:|---|\n";
  for (const auto& i : r.impls) {
    for (const auto& [dtype, by_position] : i.ulps_by_position) {
      std::int64_t holds = -1;
      const std::pair<const std::int64_t, UlpsAt>* beyond = nullptr;
      for (const auto& at : by_position) {
        if (!(at.second.worst_ulps <= ulps)) {
          beyond = &at;
          break;
        }
        holds = at.first;
      }
      os << "| " << i.name << " | " << dtype_name(static_cast<ropecheck_dtype_t>(dtype)) << " | ";
      if (holds < 0)
        os << "none";
      else
        os << holds << (holds > 0 ? " (2^" + format_number(std::log2(static_cast<double>(holds)), "%.1f") + ")" : "");
      if (beyond)
        os << " | " << beyond->first << " | " << format_number(beyond->second.worst_ulps) << " | `"
           << reproduce_command(i.name, r.suite, r.seed, beyond->second.case_index) << i.reproduce_args << "` |\n";
      else
        os << " | - | - | - |\n";
    }
  }
  os << "\n";
}

}  // namespace ropecheck
