// The gate's report as markdown tables (what `ropecheck check` prints and
// --summary writes), and the failures with their reproduce lines.
#include <cmath>
#include <cstdio>
#include <ostream>

#include "gate/gate.h"

namespace ropecheck {

namespace {
std::string fmt(double v) {
  if (std::isinf(v)) return "inf";
  char buf[32];
  const bool sci = std::fabs(v) > 0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e5);
  std::snprintf(buf, sizeof buf, sci ? "%.2e" : "%.3f", v);
  return buf;
}
}  // namespace

void print_summary(const GateReport& r, std::ostream& os) {
  os << "## ropecheck check: suite " << suite_name(r.suite) << ", seed " << r.seed << ", " << r.cases << " cases";
  if (r.shard_count > 1)
    os << " (shard " << r.shard_index << "/" << r.shard_count << " of " << r.total_cases << ")";
  os << ", " << fmt(r.seconds) << " s\n\n";
  if (!r.interrupted.empty())
    os << "**Interrupted by " << r.interrupted << " after " << r.cases << " of " << r.planned_cases
       << " cases: a partial report, no verdict.**\n\n";
  if (!r.isolated) os << kNoIsolationNote << "\n\n";
  os << "### Conformance with the reference\n\n"
        "Worst error in units of the implementation's budget (pass <= 1), and in ulps of the\n"
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
  // Sizes and layouts each implementation was judged on (conformance).
  os << "\n### Size classes and memory layouts\n\n"
        "Conformance cases judged per size class and memory layout (failed in brackets; * a case judged on a\n"
        "seeded sample of its tokens, the kernel having rotated them all).\n\n";
  os << "| implementation | size class";
  for (int m = 0; m < kMemoryLayoutCount; ++m) os << " | " << memory_layout_name(static_cast<MemoryLayout>(m));
  os << " |\n|---|---";
  for (int m = 0; m < kMemoryLayoutCount; ++m) os << "|---:";
  os << "|\n";
  for (const auto& i : r.impls)
    for (int sc = 0; sc < kSizeClassCount; ++sc) {
      const std::string cls = size_class_name(static_cast<SizeClass>(sc));
      os << "| " << i.name << " | " << cls;
      for (int m = 0; m < kMemoryLayoutCount; ++m) {
        const auto it = i.shapes.find(cls + " " + memory_layout_name(static_cast<MemoryLayout>(m)));
        os << " | ";
        if (it == i.shapes.end() || it->second.passed + it->second.failed == 0) {
          os << "-";
          continue;
        }
        const FamilyStats& f = it->second;
        os << f.passed + f.failed;
        if (f.failed) os << " (" << f.failed << " failed)";
        if (f.sampled) os << " *" << f.sampled;
      }
      os << " |\n";
    }
  os << "\n### Properties\n\n";
  os << "| implementation | property | cases | passed | failed | skipped | worst/budget | result |\n";
  os << "|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const auto& i : r.impls) {
    for (const auto& [name, s] : i.properties) {
      if (!s.applicable) {
        os << "| " << i.name << " | " << name << " | - | - | - | - | - | n/a (" << s.not_applicable << ") |\n";
        continue;
      }
      const std::string* floor = i.floor_failure(name);
      const char* verdict = s.failed ? "FAIL" : floor ? "FAIL (too few judged)" : (s.passed ? "pass" : "skipped");
      os << "| " << i.name << " | " << name << " | " << s.cases << " | " << s.passed << " | " << s.failed
         << " | " << s.skipped << " | " << fmt(s.worst_units) << " | " << verdict << " |\n";
    }
  }
  bool any_fused = false;
  for (const auto& i : r.impls) any_fused |= !i.fused.empty();
  if (any_fused) {
    os << "\n### Fused operations\n\n"
          "The fused parts per form, as their own properties judge them (CachesTheRotatedKAndV: E9 in\n"
          "cache codes; NormalisesEachHeadThenRotates: E10 and the rotation; the caller's cos/sin cache,\n"
          "ABI 1.6: ConformsToReference, with E4c).\n\n"
          "| implementation | fused form | cases | passed | failed | skipped | worst/budget | result |\n"
          "|---|---|---:|---:|---:|---:|---:|---|\n";
    for (const auto& i : r.impls)
      for (const auto& [form, f] : i.fused)
        os << "| " << i.name << " | " << form << " | " << f.cases << " | " << f.passed << " | " << f.failed << " | "
           << f.skipped << " | " << fmt(f.worst_units) << " | " << (f.failed ? "FAIL" : f.passed ? "pass" : "skipped")
           << " |\n";
  }
  bool any_skip = false;
  for (const auto& i : r.impls) any_skip |= !i.skipped.empty() || i.redrawn > 0;
  if (any_skip) {
    os << "\n### Outside the declared capabilities: skipped, or redrawn within them\n\n"
          "| implementation | reason | cases |\n|---|---|---:|\n";
    for (const auto& i : r.impls) {
      if (i.redrawn > 0)
        os << "| " << i.name << " | redrawn (judged): drawn in a dtype, layout, scheme, direction, placement or "
                                 "position dtype it does not declare | "
           << i.redrawn << " |\n";
      for (const auto& [why, n] : i.skipped) os << "| " << i.name << " | skipped: " << why << " | " << n << " |\n";
    }
  }
  os << "\n### Worst conformance error by position range\n\n"
        "Where a kernel loses accuracy with context length:\n\n";
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
  os << "\nOverall: " << (!r.interrupted.empty() ? "INTERRUPTED (" + r.interrupted + "): no verdict"
                                                  : r.passed() ? "PASS" : "FAIL")
     << "\n";
}

void print_failures(const GateReport& r, std::ostream& os, int max_per_impl) {
  for (const auto& i : r.impls) {
    for (const auto& [property, why] : i.under_floor)
      os << "FAIL " << i.name << " " << property << ": " << why << "\n";
    int shown = 0;
    for (const auto& f : i.failures) {
      if (shown++ == max_per_impl) {
        os << "  ... " << (i.failures.size() - max_per_impl) << " more failure(s) of " << i.name << "\n";
        break;
      }
      os << "FAIL " << i.name << " " << f.property << " case " << f.case_index << " (" << f.family
         << ", seed " << r.seed << "): " << f.message << "\n  case: " << f.case_description
         << "\n  reproduce: " << f.reproduce << "\n";
    }
  }
}

}  // namespace ropecheck
