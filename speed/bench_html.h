// SPDX-License-Identifier: MIT
// `ropecheck bench --report FILE.html`: the speed report as one
// self-contained page on the HTML report's building blocks (core/report/):
// the verdict; each named timing failure first (a row that failed: a wrong
// output, a thread left working, a rate above the roofline...); the timed
// rows as a sortable table (GB/s, the ratio to each baseline of the same
// run, time per call with its spread); the kernel's rate over the in-place
// pass's against tokens per call; the skipped rows.
#ifndef ROPECHECK_SPEED_BENCH_HTML_H_
#define ROPECHECK_SPEED_BENCH_HTML_H_

#include <ostream>

#include "speed/bench_report.h"

namespace ropecheck::speed {

void write_bench_html(const BenchReport& r, std::ostream& os);

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_BENCH_HTML_H_
