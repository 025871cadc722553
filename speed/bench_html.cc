// SPDX-License-Identifier: MIT
// `ropecheck bench --report FILE.html`: the definitions of speed/bench_html.h.
#include "speed/bench_html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "core/report/html_page.h"
#include "core/report/report_text.h"
#include "core/report/svg_plot.h"
#include "ropecheck/names.h"
#include "speed/bench_table.h"

namespace ropecheck::speed {

void write_bench_html(const BenchReport& r, std::ostream& os) {
  const char* verdict = !r.interrupted.empty() ? "INTERRUPTED" : r.passed() ? "PASS" : "FAIL";
  html_page_begin(std::string("ropecheck bench: ") + verdict, os);
  os << "<h1>ropecheck bench: <span class=\"" << (r.passed() ? "pass" : "fail") << "\">" << verdict
     << "</span></h1>\n<p>" << xml_escape(r.machine) << "; " << xml_escape(r.date) << "; load " << xml_escape(r.load_before)
     << " before, " << xml_escape(r.load_after) << " after. Caches " << xml_escape(r.caches) << "; " << r.repetitions
     << " timed calls per series, interleaved at random; " << r.judged_per_row << " kernel call(s) per row judged; "
     << (r.isolated ? "isolated" : "NOT isolated") << "; seed " << r.seed << "; " << format_number(r.seconds, "%.1f")
     << " s." << (r.inputs.empty() ? "" : " Inputs: " + xml_escape(r.inputs) + ".") << "</p>\n";
  if (!r.interrupted.empty())
    os << "<p class=\"fail\"><b>Interrupted by " << xml_escape(r.interrupted)
       << ": the rows shown are the ones completed.</b></p>\n";
  int failed = static_cast<int>(r.impl_failures.size());
  for (const BenchRow& row : r.rows) failed += row.status == RowStatus::kFailed;
  if (failed > 0) {
    os << "<section id=\"failures\"><h2 class=\"fail\">Failures (" << failed << ")</h2>\n";
    for (const BenchRow& row : r.rows)
      if (row.status == RowStatus::kFailed)
        os << "<div class=\"failure\"><h3>" << xml_escape(row.name()) << "</h3><div class=\"message\">"
           << xml_escape(row.reason) << "</div><p>shape: <code>" << xml_escape(row.shape_key()) << "</code></p></div>\n";
    for (const auto& [name, why] : r.impl_failures)
      os << "<div class=\"failure\"><h3>" << xml_escape(name) << ": no row timed</h3><div class=\"message\">"
         << xml_escape(why) << "</div></div>\n";
    os << "</section>\n";
  }
  os << "<h2 id=\"summary\">Timed rows</h2>\n<p>The kernel's rate at its median time, its ratio to each baseline "
        "timed in the same run (a memcpy of the bytes it moves, and the in-place read-modify-write pass over them: "
        "the roofline), its time per call (median, fastest, interquartile range) and the calls judged.</p>\n";
  write_html(bench_rows_table(r), os);
  // Kernel rate / in-place pass rate against tokens per call, a series per
  // kernel, dtype, layout and thread count.
  std::map<std::string, Series> by_series;
  for (const BenchRow& row : r.rows) {
    if (row.status != RowStatus::kTimed) continue;
    const std::string label = row.impl + " " + std::string(dtype_name(row.choice.dtype)) + " " +
                              std::string(layout_name(row.choice.layout)) + " " + std::to_string(row.choice.threads) + "t";
    Series& s = by_series[label];
    s.label = label;
    s.pts.emplace_back(std::log2(static_cast<double>(row.tokens)), row.ratio_to(row.rmw));
  }
  std::vector<Series> series;
  for (auto& [label, s] : by_series) {
    s.color = series_color(series.size());
    std::sort(s.pts.begin(), s.pts.end());
    series.push_back(std::move(s));
  }
  PlotOptions o;
  o.title = "kernel GB/s / in-place pass GB/s (1: at the roofline; above it a row is flagged)";
  o.xlabel = "tokens per call";
  o.ylabel = "ratio";
  o.x_log2 = true;
  o.hline = 1;
  o.hline_label = "in-place pass";
  html_plot("plot-roofline", svg_plot(o, series), os);
  ReportTable skipped;
  skipped.id = "skipped";
  skipped.title = "Skipped rows";
  skipped.add_column("row");
  skipped.add_column("why");
  for (const BenchRow& row : r.rows)
    if (row.status == RowStatus::kSkipped) skipped.rows.push_back({row.name(), row.reason});
  if (!skipped.rows.empty()) write_html(skipped, os);
  html_page_end(os);
}

}  // namespace ropecheck::speed
