// SPDX-License-Identifier: MIT
// The gate's report as one self-contained HTML page a reviewer opens from a
// CI artifact, read top down: the verdict; the failures, each with its
// case, first wrong element, budget terms and the line that reproduces it;
// a row per kernel; accuracy against context length by what tells kernels
// apart (gate/accuracy.h); then every table of the terminal's report,
// sortable, and the verdict's own measure (error / budget) with the
// RoFormer decay curve.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <map>
#include <sstream>

#include "gate/accuracy.h"
#include "gate/gate.h"
#include "gate/gate_tables.h"
#include "core/report/html_page.h"
#include "core/report/report_text.h"
#include "core/report/svg_plot.h"
#include "ropecheck/names.h"

namespace ropecheck {
namespace {

// Failures shown in full per implementation (the rest are counted; the
// terminal, --summary and --json list them all).
constexpr int kFailuresShown = 20;

void element_rows(const Violation& v, std::ostream& os) {
  auto row = [&](const char* k, const std::string& value) {
    os << "<tr><th scope=\"row\">" << k << "</th><td>" << xml_escape(value) << "</td></tr>";
  };
  os << "<table class=\"element\">";
  row("what", v.what);
  if (v.token >= 0)
    row("element", v.tensor + "[token " + std::to_string(v.token) + ", head " + std::to_string(v.head) +
                       ", channel " + std::to_string(v.channel) + "], position " + std::to_string(v.position));
  row("got", value_text(v.got, v.got_bits, v.got_bytes));
  row(v.budget > 0 ? "expected (exact)" : "expected", value_text(v.expected, v.expected_bits, v.expected_bytes));
  if (v.budget > 0) {
    const double err = std::fabs(v.got - v.expected);
    row("|got - expected|", format_number(err, "%.6g") + " = " + format_number(err / v.budget, "%.4g") + " budgets");
    row("budget", format_number(v.budget, "%.6g"));
  }
  if (!v.detail.empty()) row("budget terms", v.detail);
  os << "</table>\n";
}

void failure_card(const GateReport& r, const ImplReport& i, const FailureRecord& f, std::ostream& os) {
  os << "<div class=\"failure\"><h3>" << xml_escape(i.name) << " &middot; " << xml_escape(f.property) << " &middot; case "
     << f.case_index << " (" << xml_escape(f.family) << ", seed " << r.seed << ")";
  if (std::isfinite(f.worst_units)) os << " &middot; worst " << format_number(f.worst_units, "%.4g") << " budgets";
  os << "</h3>\n";
  std::string message = f.message;
  if (f.element) {
    element_rows(*f.element, os);
    // The element's fields are in the table above; the count stays.
    if (const std::size_t at = message.find("; first: "); at != std::string::npos) message.resize(at);
  }
  os << "<div class=\"message\">" << xml_escape(message) << "</div>\n<div class=\"case\">case: <code>"
     << xml_escape(f.case_description) << "</code></div>\n";
  html_copy_block(f.reproduce, os);
  os << "</div>\n";
}

// Per implementation and property: the first failure in full, the others
// folded under it (every one with its element and reproduce line).
void write_failures(const GateReport& r, std::ostream& os) {
  std::size_t total = 0;
  for (const ImplReport& i : r.impls) total += i.failures.size() + i.under_floor.size();
  if (total == 0) return;
  os << "<section id=\"failures\"><h2 class=\"fail\">Failures (" << total << ")</h2>\n";
  for (const ImplReport& i : r.impls) {
    for (const auto& [property, why] : i.under_floor) {
      os << "<div class=\"failure\"><h3>" << xml_escape(i.name) << " &middot; " << xml_escape(property)
         << ": too few cases judged</h3><div class=\"message\">" << xml_escape(why) << "</div></div>\n";
    }
    std::vector<std::string> order;  // properties in the order they first failed
    std::map<std::string, std::vector<const FailureRecord*>> by_property;
    const std::size_t shown = std::min(i.failures.size(), static_cast<std::size_t>(kFailuresShown));
    for (std::size_t k = 0; k < shown; ++k) {
      const FailureRecord& f = i.failures[k];
      if (!by_property.count(f.property)) order.push_back(f.property);
      by_property[f.property].push_back(&f);
    }
    for (const std::string& p : order) {
      const auto& list = by_property[p];
      failure_card(r, i, *list[0], os);
      if (list.size() < 2) continue;
      os << "<details class=\"more\"><summary>" << list.size() - 1 << " more " << xml_escape(p) << " failure(s) of "
         << xml_escape(i.name) << "</summary>\n";
      for (std::size_t k = 1; k < list.size(); ++k) failure_card(r, i, *list[k], os);
      os << "</details>\n";
    }
    if (i.failures.size() > shown)
      os << "<p>&hellip; " << i.failures.size() - shown << " more failure(s) of " << xml_escape(i.name)
         << ": every one is in the terminal's report, --summary and --json.</p>\n";
  }
  os << "</section>\n";
}

// Per dtype any kernel was judged in: ulps against the correctly rounded
// result, and the error beyond the final rounding, against log2 position.
void write_accuracy_plots(const GateReport& r, std::ostream& os) {
  std::map<int, std::vector<std::pair<std::size_t, DtypeAccuracy>>> by_dtype;  // dtype -> (kernel index, data)
  for (std::size_t k = 0; k < r.impls.size(); ++k)
    for (DtypeAccuracy& d : accuracy_by_dtype(r.impls[k])) by_dtype[d.dtype].emplace_back(k, std::move(d));
  for (const auto& [dtype, kernels] : by_dtype) {
    const std::string name(dtype_name(static_cast<ropecheck_dtype_t>(dtype)));
    std::vector<Series> rounded, beyond;
    for (const auto& [k, d] : kernels) {
      Series a{r.impls[k].name, series_color(k), {}}, b{r.impls[k].name, series_color(k), {}};
      for (const AccuracyPoint& p : d.curve) {
        a.pts.emplace_back(p.log2_position, p.worst_rounded_ulps);
        b.pts.emplace_back(p.log2_position, p.worst_beyond);
      }
      rounded.push_back(std::move(a));
      beyond.push_back(std::move(b));
    }
    PlotOptions o;
    o.x_log2 = true;
    o.y = YScale::kLog1p;
    o.xlabel = "|position| + 1 (worst per 1/8 octave)";
    o.title = name + ": worst error in ulps against the correctly rounded exact result";
    o.ylabel = "ulps";
    html_plot("plot-rounded-" + name, svg_plot(o, rounded), os);
    o.title = name + ": worst error beyond the final rounding";
    o.ylabel = "ulps of m r";
    html_plot("plot-beyond-" + name, svg_plot(o, beyond), os);
  }
}

// The verdict's measure, per 1/16 octave: error / budget against the
// budget line, and ulps against the correctly rounded result, all dtypes.
void write_budget_plots(const GateReport& r, std::ostream& os) {
  std::vector<Series> units, ulps;
  for (std::size_t k = 0; k < r.impls.size(); ++k) {
    const ImplReport& i = r.impls[k];
    Series su{i.name, series_color(k), {}}, sl{i.name, series_color(k), {}};
    for (const auto& [bucket, pt] : i.curve) {
      const double x = std::log2(std::fabs(static_cast<double>(pt.position)) + 1);
      su.pts.emplace_back(x, std::max(pt.worst_units, 1e-6));
      sl.pts.emplace_back(x, pt.worst_ulps);
    }
    units.push_back(std::move(su));
    ulps.push_back(std::move(sl));
  }
  PlotOptions o;
  o.x_log2 = true;
  o.xlabel = "|position| + 1";
  o.title = "worst error / budget (fails above the dashed line)";
  o.ylabel = "error / budget";
  o.y = YScale::kLog;
  o.hline = 1.0;
  o.hline_label = "budget";
  html_plot("plot-budget", svg_plot(o, units), os);
  o.title = "worst error in ulps against the correctly rounded exact result, all dtypes";
  o.ylabel = "ulps";
  o.y = YScale::kLog1p;
  o.hline = 0;
  html_plot("plot-ulps", svg_plot(o, ulps), os);
}

}  // namespace

void write_html_report(const GateReport& r, const std::vector<double>& decay, std::ostream& os) {
  const char* verdict = !r.interrupted.empty() ? "INTERRUPTED" : r.passed() ? "PASS" : "FAIL";
  html_page_begin(std::string("ropecheck check: ") + verdict, os);
  os << "<h1>ropecheck check: <span class=\"" << (r.passed() && r.interrupted.empty() ? "pass" : "fail") << "\">"
     << verdict << "</span></h1>\n<p>Suite " << suite_name(r.suite) << ", seed " << r.seed << ", " << r.cases
     << " cases";
  if (r.shard_count > 1) os << " (shard " << r.shard_index << "/" << r.shard_count << " of " << r.total_cases << ")";
  if (!r.config_path.empty()) os << ", --config " << xml_escape(r.config_path);
  os << ", " << r.impls.size() << " implementation(s), " << format_number(r.seconds, "%.1f") << " s.</p>\n";
  if (!r.interrupted.empty())
    os << "<p class=\"fail\"><b>Interrupted by " << xml_escape(r.interrupted) << " after " << r.cases << " of "
       << r.planned_cases << " cases: a partial report, no verdict.</b></p>\n";
  if (!r.isolated) os << "<p class=\"fail\">" << xml_escape(kNoIsolationNote) << "</p>\n";
  write_failures(r, os);
  os << "<h2 id=\"summary\">Kernels</h2>\n";
  ReportTable kernels = kernel_table(r);
  kernels.title.clear();  // the section's heading says it
  write_html(kernels, os);
  if (const ReportTable t = skipped_table(r); !t.rows.empty()) write_html(t, os);
  os << "<h2>Accuracy against context length</h2>\n";
  write_html(accuracy_table(r), os);
  write_accuracy_plots(r, os);
  for (double u : kReachUlps) write_html(within_table(r, u), os);
  os << "<h2>Tables</h2>\n";
  write_html(conformance_table(r), os);
  write_html(shapes_table(r), os);
  write_html(properties_table(r), os);
  if (const ReportTable t = fused_table(r); !t.rows.empty()) write_html(t, os);
  for (const ReportTable& t : slack_tables(r))
    if (!t.rows.empty()) write_html(t, os);
  os << "<details id=\"verdict-measure\"><summary>Error / budget: the verdict's measure</summary>\n";
  write_html(budget_by_range_table(r), os);
  write_budget_plots(r, os);
  os << "</details>\n";
  if (!decay.empty()) {
    Series d{"d=128, b=1e4", series_color(0), {}};
    for (std::size_t rr = 0; rr < decay.size(); ++rr) d.pts.emplace_back(static_cast<double>(rr), decay[rr]);
    PlotOptions o;
    o.title = "(1/(d/2)) sum |S_j(r)|";
    o.xlabel = "relative distance r";
    o.ylabel = "bound";
    os << "<h2>Long-term decay (RoFormer 3.4.3)</h2>\n";
    html_plot("plot-decay", svg_plot(o, {d}), os);
  }
  html_page_end(os);
}

}  // namespace ropecheck
