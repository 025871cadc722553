// SPDX-License-Identifier: MIT
// The report files `check` and `merge` write beside their tables: the definitions of cli/report_files.h.
#include "cli/report_files.h"

#include <iostream>
#include <sstream>

#include "cli/common_options.h"
#include "core/io/atomic_file.h"
#include "core/isolation/interrupt.h"
#include "gate/report_json.h"
#include "reference/rotation.h"

namespace ropecheck::cli {

void add_report_options(CLI::App* cmd, ReportFiles& f) {
  cmd->add_option("--summary", f.summary, "Also write the summary table (markdown) to this file")
      ->check(non_empty_path());
  cmd->add_option("--junit", f.junit, "Also write JUnit XML (one testcase per implementation x property)")
      ->check(non_empty_path());
  cmd->add_option("--report", f.html, "Also write a self-contained HTML report with error-vs-position plots")
      ->check(non_empty_path());
  cmd->add_option("--json", f.json, "Also write the report as JSON, what `ropecheck merge` joins shard by shard")
      ->check(non_empty_path());
}

int finish_report(const GateReport& r, const ReportFiles& f, const std::string& extra) {
  print_summary(r, std::cout);
  std::cout << (extra.empty() ? "" : "\n") << extra;
  if (!r.passed()) {
    std::cout << "\n";
    print_failures(r, std::cout);
    print_worst_failures(r, std::cout);
  }
  // A file that cannot be written ends the command (run_command prints it, exit 2).
  if (!f.summary.empty()) {
    std::ostringstream s;
    print_summary(r, s);
    s << (extra.empty() ? "" : "\n") << extra;
    if (!r.passed()) {
      s << "\n";
      print_failures(r, s);
    }
    write_file_atomically(f.summary, s.str());
  }
  if (!f.junit.empty()) {
    std::ostringstream s;
    write_junit(r, s);
    write_file_atomically(f.junit, s.str());
  }
  if (!f.html.empty()) {
    ref::FreqSpec def;  // decay curve of the default scheme, d = 128, b = 1e4
    const auto decay = ref::decay_curve(ref::compute_frequencies<ref::Real>(def, 128), 4096, 1);
    std::ostringstream s;
    write_html_report(r, decay, s);
    write_file_atomically(f.html, s.str());
  }
  if (!f.json.empty()) write_file_atomically(f.json, report_to_json(r));
  if (!r.interrupted.empty()) return interrupted_exit_code();
  return r.passed() ? 0 : 1;
}

}  // namespace ropecheck::cli
