// SPDX-License-Identifier: MIT
// The gate's report as tables (what `ropecheck check` prints, --summary
// writes and --report shows as HTML), and the failures with their
// reproduce lines.
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

namespace {
std::string fmt(double v) {
  if (std::isinf(v)) return "inf";
  char buf[32];
  const bool sci = std::fabs(v) > 0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e5);
  std::snprintf(buf, sizeof buf, sci ? "%.2e" : "%.3f", v);
  return buf;
}

// Ulps: mostly small whole numbers, so three significant digits.
std::string fmt_ulps(double v) { return std::isinf(v) ? "inf" : format_number(v, "%.3g"); }

std::string n(std::int64_t v) { return std::to_string(v); }

const char* verdict_of(const GateReport& r, const ImplReport& i) {
  if (!r.interrupted.empty()) return "no verdict (interrupted)";
  return i.passed() ? "PASS" : "FAIL";
}

const PropertyStats* conformance_of(const ImplReport& i) {
  for (const auto& [name, s] : i.properties)
    if (name == prop::kConformanceProperty) return &s;
  return nullptr;
}
}  // namespace

ReportTable kernel_table(const GateReport& r) {
  ReportTable t("kernels", "Kernels",
      "Per implementation: its verdict, the conformance cases judged (passed + failed), skipped (outside its "
      "declared capabilities: reasons below) and redrawn within them, the properties passed, failed and under the "
      "--min-judged floor, and the precision policy it declares (the budgets follow from it, docs/ERROR_MODEL.md).");
  t.add_column("implementation");
  t.add_column("verdict");
  for (const char* h : {"judged", "passed", "failed", "skipped", "redrawn"}) t.add_column(h, true);
  for (const char* h : {"properties passed", "properties failed", "under the floor"}) t.add_column(h, true);
  t.add_column("policy");
  for (const ImplReport& i : r.impls) {
    const PropertyStats* c = conformance_of(i);
    int pass = 0, fail = 0;
    for (const auto& [name, s] : i.properties) {
      if (!s.applicable) continue;
      if (s.failed || i.floor_failure(name)) ++fail;
      else if (s.passed) ++pass;
    }
    const auto count = [&](int v) { return c ? n(v) : std::string("-"); };
    t.rows.push_back({i.name, verdict_of(r, i), count(c ? c->passed + c->failed : 0), count(c ? c->passed : 0),
                      count(c ? c->failed : 0), count(c ? c->skipped : 0), n(i.redrawn), n(pass), n(fail),
                      n(static_cast<std::int64_t>(i.under_floor.size())), i.policy.empty() ? "-" : i.policy});
  }
  return t;
}

ReportTable conformance_table(const GateReport& r) {
  ReportTable t("conformance", "Conformance with the reference",
      "Worst error in units of the implementation's budget (pass <= 1), and in ulps of the\n"
      "storage dtype against the correctly rounded exact result.");
  t.add_column("implementation");
  t.add_column("family");
  for (const char* h : {"cases", "passed", "failed", "skipped", "worst/budget", "worst ulps"}) t.add_column(h, true);
  t.add_column("result");
  for (const auto& i : r.impls)
    for (const auto& [family, f] : i.families)
      t.rows.push_back({i.name, family, n(f.cases), n(f.passed), n(f.failed), n(f.skipped), fmt(f.worst_units),
                        fmt(f.worst_ulps), f.failed ? "FAIL" : (f.passed ? "pass" : "skipped")});
  return t;
}

ReportTable shapes_table(const GateReport& r) {
  ReportTable t("shapes", "Size classes and memory layouts",
      "Conformance cases judged per size class and memory layout (failed in brackets; * a case judged on a\n"
      "seeded sample of its tokens, the kernel having rotated them all).");
  t.add_column("implementation");
  t.add_column("size class");
  for (int m = 0; m < kMemoryLayoutCount; ++m) t.add_column(memory_layout_name(static_cast<MemoryLayout>(m)), true);
  for (const auto& i : r.impls)
    for (int sc = 0; sc < kSizeClassCount; ++sc) {
      const std::string cls = size_class_name(static_cast<SizeClass>(sc));
      std::vector<std::string> row{i.name, cls};
      for (int m = 0; m < kMemoryLayoutCount; ++m) {
        const auto it = i.shapes.find(cls + " " + memory_layout_name(static_cast<MemoryLayout>(m)));
        if (it == i.shapes.end() || it->second.passed + it->second.failed == 0) {
          row.push_back("-");
          continue;
        }
        const FamilyStats& f = it->second;
        std::string cell = n(f.passed + f.failed);
        if (f.failed) cell += " (" + n(f.failed) + " failed)";
        if (f.sampled) cell += " *" + n(f.sampled);
        row.push_back(cell);
      }
      t.rows.push_back(std::move(row));
    }
  return t;
}

ReportTable properties_table(const GateReport& r) {
  ReportTable t("properties", "Properties");
  t.add_column("implementation");
  t.add_column("property");
  for (const char* h : {"cases", "passed", "failed", "skipped", "worst/budget"}) t.add_column(h, true);
  t.add_column("result");
  for (const auto& i : r.impls)
    for (const auto& [name, s] : i.properties) {
      if (!s.applicable) {
        t.rows.push_back({i.name, name, "-", "-", "-", "-", "-", "n/a (" + s.not_applicable + ")"});
        continue;
      }
      const std::string* floor = i.floor_failure(name);
      t.rows.push_back({i.name, name, n(s.cases), n(s.passed), n(s.failed), n(s.skipped), fmt(s.worst_units),
                        s.failed ? "FAIL" : floor ? "FAIL (too few judged)" : (s.passed ? "pass" : "skipped")});
    }
  return t;
}

ReportTable fused_table(const GateReport& r) {
  ReportTable t("fused", "Fused operations",
      "The fused parts per form, as their own properties judge them (CachesTheRotatedKAndV: E9 in\n"
      "cache codes; NormalisesEachHeadThenRotates: E10 and the rotation; the caller's cos/sin cache,\n"
      "ABI 1.6: ConformsToReference, with E4c).");
  t.add_column("implementation");
  t.add_column("fused form");
  for (const char* h : {"cases", "passed", "failed", "skipped", "worst/budget"}) t.add_column(h, true);
  t.add_column("result");
  for (const auto& i : r.impls)
    for (const auto& [form, f] : i.fused)
      t.rows.push_back({i.name, form, n(f.cases), n(f.passed), n(f.failed), n(f.skipped), fmt(f.worst_units),
                        f.failed ? "FAIL" : f.passed ? "pass" : "skipped"});
  return t;
}

ReportTable skipped_table(const GateReport& r) {
  ReportTable t("skipped", "Outside the declared capabilities: skipped, or redrawn within them");
  t.add_column("implementation");
  t.add_column("reason");
  t.add_column("cases", true);
  for (const auto& i : r.impls) {
    if (i.redrawn > 0)
      t.rows.push_back({i.name,
                        "redrawn (judged): drawn in a dtype, layout, scheme, direction, placement, position dtype "
                        "or position range it does not declare",
                        n(i.redrawn)});
    for (const auto& [why, k] : i.skipped) t.rows.push_back({i.name, "skipped: " + why, n(k)});
  }
  return t;
}

ReportTable accuracy_table(const GateReport& r) {
  ReportTable t("accuracy", "Accuracy by position range",
      "Where a kernel loses accuracy with context length, per storage dtype. Each range: the worst error in ulps\n"
      "against the correctly rounded exact result (0: every element correctly rounded), and in brackets the worst\n"
      "error beyond the final rounding (|got - exact| - 1/2 ulp, in ulps at the pair's magnitude m r: 0 when the\n"
      "last rounding is the only error). Within N ulps (of m r, against the exact result): the |position| up to\n"
      "which every judged element stays within them.");
  t.add_column("implementation");
  t.add_column("dtype");
  t.add_column("positions", true);
  for (int b = 0; b < kPositionBins; ++b) t.add_column(position_bin_name(b), true);
  for (double u : kReachUlps)
    t.add_column("within " + format_number(u) + (u > 1 ? " ulps" : " ulp") + " up to", true);
  for (const ImplReport& i : r.impls)
    for (const DtypeAccuracy& d : accuracy_by_dtype(i)) {
      std::int64_t positions = 0;
      std::vector<std::string> row{i.name, std::string(dtype_name(static_cast<ropecheck_dtype_t>(d.dtype))), ""};
      for (const RangeAccuracy& a : d.ranges) {
        positions += a.positions;
        row.push_back(a.positions == 0 ? "-"
                                       : fmt_ulps(a.worst_rounded_ulps) + " (+" + fmt_ulps(a.worst_beyond) + ")");
      }
      row[2] = n(positions);
      for (double u : kReachUlps) row.push_back(reach_text(reach_within(i.ulps_by_position.at(d.dtype), u)));
      t.rows.push_back(std::move(row));
    }
  return t;
}

ReportTable budget_by_range_table(const GateReport& r) {
  ReportTable t("budget-by-range", "Error / budget by position range",
      "The verdict's measure over all dtypes: worst error in units of the budget (pass <= 1) and in ulps against the\n"
      "correctly rounded result. The last rounding to the storage dtype reaches its own budget term, so a correct\n"
      "kernel reads about 1 here at every context length; the accuracy table above tells kernels apart.");
  t.add_column("implementation");
  for (int b = 0; b < kPositionBins; ++b) t.add_column(position_bin_name(b), true);
  for (const auto& i : r.impls) {
    std::vector<std::string> row{i.name};
    for (const BinStats& s : i.bins)
      row.push_back(s.elements == 0 ? "-" : fmt(s.worst_units) + " budget, " + fmt(s.worst_ulps) + " ulp");
    t.rows.push_back(std::move(row));
  }
  return t;
}

void print_summary(const GateReport& r, std::ostream& os) {
  os << "## ropecheck check: suite " << suite_name(r.suite) << ", seed " << r.seed << ", " << r.cases << " cases";
  if (r.shard_count > 1)
    os << " (shard " << r.shard_index << "/" << r.shard_count << " of " << r.total_cases << ")";
  os << ", " << fmt(r.seconds) << " s\n\n";
  if (!r.interrupted.empty())
    os << "**Interrupted by " << r.interrupted << " after " << r.cases << " of " << r.planned_cases
       << " cases: a partial report, no verdict.**\n\n";
  if (!r.isolated) os << kNoIsolationNote << "\n\n";
  bool first = true;
  for (const ReportTable& t : {kernel_table(r), conformance_table(r), shapes_table(r), properties_table(r),
                               fused_table(r), skipped_table(r), accuracy_table(r)}) {
    if (t.rows.empty() && (t.id == "fused" || t.id == "skipped")) continue;
    if (!first) os << "\n";
    first = false;
    write_markdown(t, os);
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
