// SPDX-License-Identifier: MIT
// A bench report in the terminal: one line per timed row (the kernel's rate
// at its median time, its ratio to each baseline of the same run, its time
// per call: median, fastest, interquartile range; the calls judged), then
// each failed row with its named failure, each skipped row with why, and the
// verdict.
#ifndef ROPECHECK_SPEED_BENCH_TABLE_H_
#define ROPECHECK_SPEED_BENCH_TABLE_H_

#include <ostream>
#include <string>

#include "core/report/report_table.h"
#include "speed/bench_report.h"

namespace ropecheck::speed {

// A duration for a reader: "812 ns", "3.31 us", "12.4 ms", "1.20 s".
std::string format_seconds(double s);
// The timed rows (the terminal's table and the HTML report's, speed/bench_html.h).
ReportTable bench_rows_table(const BenchReport& r);
void print_bench(const BenchReport& r, std::ostream& os);

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_BENCH_TABLE_H_
