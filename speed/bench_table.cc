// SPDX-License-Identifier: MIT
// A bench report in the terminal: the definitions of speed/bench_table.h.
#include "speed/bench_table.h"

#include <cstdio>

#include "core/report/report_text.h"
#include "ropecheck/names.h"

namespace ropecheck::speed {

std::string format_seconds(double s) {
  char buf[64];
  if (s < 1e-6) std::snprintf(buf, sizeof buf, "%.0f ns", s * 1e9);
  else if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  else if (s < 1) std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

ReportTable bench_rows_table(const BenchReport& r) {
  ReportTable t;
  t.id = "rows";
  for (const char* h : {"implementation", "model", "step", "dtype", "layout"}) t.add_column(h);
  for (const char* h : {"threads", "GB/s", "vs copy", "vs in-place", "copy GB/s", "in-place GB/s", "time/call median",
                        "min", "IQR", "judged"})
    t.add_column(h, true);
  for (const BenchRow& row : r.rows) {
    if (row.status != RowStatus::kTimed) continue;
    t.rows.push_back({row.impl, row.model, std::string(step_name(row.step)) + " " + std::to_string(row.tokens),
                      std::string(dtype_name(row.choice.dtype)),
                      std::string(layout_name(row.choice.layout)) + (row.choice.in_place ? "" : " (out of place)"),
                      std::to_string(row.choice.threads), format_fixed(row.kernel.gbps(), 1), format_fixed(row.ratio_to(row.copy), 2),
                      format_fixed(row.ratio_to(row.rmw), 2), format_fixed(row.copy.gbps(), 1), format_fixed(row.rmw.gbps(), 1),
                      format_seconds(row.kernel.median), format_seconds(row.kernel.min),
                      format_seconds(row.kernel.q3 - row.kernel.q1), std::to_string(row.judged)});
  }
  return t;
}

void print_bench(const BenchReport& r, std::ostream& os) {
  os << "machine: " << r.machine << "; " << r.date << "; load " << r.load_before << " before, " << r.load_after
     << " after\n";
  os << "caches " << r.caches << "; " << r.repetitions << " timed calls per series, interleaved at random; "
     << r.judged_per_row << " kernel call(s) per row judged; " << (r.isolated ? "isolated" : "NOT isolated")
     << "; seed " << r.seed << "\n";
  if (!r.inputs.empty()) os << "inputs: " << r.inputs << "\n";
  os << "\n";
  write_markdown(bench_rows_table(r), os);
  for (const BenchRow& row : r.rows)
    if (row.status == RowStatus::kFailed) os << "FAIL " << row.name() << ": " << row.reason << "\n";
  for (const auto& [name, why] : r.impl_failures) os << "FAIL " << name << ": " << why << "\n";
  for (const BenchRow& row : r.rows)
    if (row.status == RowStatus::kSkipped) os << "skipped " << row.name() << ": " << row.reason << "\n";
  if (!r.interrupted.empty()) os << "interrupted by " << r.interrupted << ": the rows above are the ones completed\n";
  os << "Overall: " << (r.passed() ? "PASS" : "FAIL") << "\n";
}

}  // namespace ropecheck::speed
