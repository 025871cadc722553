#include "ropecheck/check.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ropecheck {

bool CheckReport::passed() const {
  for (const auto& i : impls)
    if (!i.passed()) return false;
  return true;
}

std::string reproduce_command(const std::string& impl, Suite suite, std::uint64_t seed, int index) {
  return "ropecheck check --impl " + impl + " --suite " + suite_name(suite) + " --seed " +
         std::to_string(seed) + " --case " + std::to_string(index);
}

CheckReport run_check(const CheckOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  CheckReport r;
  r.suite = o.suite;
  r.seed = o.seed;
  for (const auto* impl : o.impls) r.impls.push_back(ImplReport{impl->name, {}, {}, {}});
  const int total = o.cases ? *o.cases : suite_size(o.suite);
  const int first = o.only_case ? *o.only_case : 0;
  const int last = o.only_case ? *o.only_case + 1 : total;
  for (int idx = first; idx < last; ++idx) {
    const Case c = make_case(o.suite, o.seed, idx);
    const CaseRunner runner(c);
    ++r.cases;
    for (std::size_t k = 0; k < o.impls.size(); ++k) {
      const CaseOutcome out = runner.run(*o.impls[k]);
      ImplReport& rep = r.impls[k];
      FamilyStats& f = rep.families[c.family()];
      ++f.cases;
      if (out.outcome == Outcome::kSkipped) {
        ++f.skipped;
        continue;
      }
      f.worst_units = std::max(f.worst_units, out.worst_units);
      f.worst_ulps = std::max(f.worst_ulps, out.worst_ulps);
      for (int b = 0; b < kPositionBins; ++b) {
        rep.bins[b].elements += out.bins[b].elements;
        rep.bins[b].worst_units = std::max(rep.bins[b].worst_units, out.bins[b].worst_units);
        rep.bins[b].worst_ulps = std::max(rep.bins[b].worst_ulps, out.bins[b].worst_ulps);
      }
      if (out.outcome == Outcome::kPass) {
        ++f.passed;
      } else {
        ++f.failed;
        rep.failures.push_back({idx, c.family(), out.message, c.describe(),
                                reproduce_command(rep.name, o.suite, o.seed, idx)});
      }
    }
    if (o.progress) o.progress(idx - first + 1, last - first);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {
std::string fmt(double v) {
  if (std::isinf(v)) return "inf";
  char buf[32];
  const bool sci = std::fabs(v) > 0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e5);
  std::snprintf(buf, sizeof buf, sci ? "%.2e" : "%.3f", v);
  return buf;
}
}  // namespace

void print_summary(const CheckReport& r, std::ostream& os) {
  os << "## ropecheck check: suite " << suite_name(r.suite) << ", seed " << r.seed << ", "
     << r.cases << " cases, " << fmt(r.seconds) << " s\n\n";
  os << "Worst error in units of the implementation's budget (pass <= 1), and in ulps of the\n"
        "storage dtype against the correctly rounded exact result.\n\n";
  os << "| implementation | family | cases | passed | failed | skipped | worst/budget | worst ulps | result |\n";
  os << "|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& i : r.impls) {
    for (const auto& [family, f] : i.families) {
      const char* verdict = f.failed ? "FAIL" : (f.passed ? "pass" : "skipped");
      os << "| " << i.name << " | " << family << " | " << f.cases << " | " << f.passed << " | "
         << f.failed << " | " << f.skipped << " | " << fmt(f.worst_units) << " | "
         << fmt(f.worst_ulps) << " | " << verdict << " |\n";
    }
  }
  os << "\nWorst error by position range (where a kernel loses accuracy with context length):\n\n";
  os << "| implementation |";
  for (int b = 0; b < kPositionBins; ++b) os << " " << position_bin_name(b) << " |";
  os << "\n|---|";
  for (int b = 0; b < kPositionBins; ++b) os << "---:|";
  os << "\n";
  for (const auto& i : r.impls) {
    os << "| " << i.name << " |";
    for (int b = 0; b < kPositionBins; ++b) {
      const BinStats& s = i.bins[b];
      if (s.elements == 0)
        os << " - |";
      else
        os << " " << fmt(s.worst_units) << " budget, " << fmt(s.worst_ulps) << " ulp |";
    }
    os << "\n";
  }
  os << "\nOverall: " << (r.passed() ? "PASS" : "FAIL") << "\n";
}

void print_failures(const CheckReport& r, std::ostream& os, int max_per_impl) {
  for (const auto& i : r.impls) {
    int shown = 0;
    for (const auto& f : i.failures) {
      if (shown++ == max_per_impl) {
        os << "  ... " << (i.failures.size() - max_per_impl) << " more failure(s) of " << i.name << "\n";
        break;
      }
      os << "FAIL " << i.name << " case " << f.case_index << " (" << f.family << ", seed " << r.seed
         << "): " << f.message << "\n  case: " << f.case_description
         << "\n  reproduce: " << f.reproduce << "\n";
    }
  }
}

}  // namespace ropecheck
