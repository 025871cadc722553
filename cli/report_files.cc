#include "cli/report_files.h"

#include <iostream>
#include <sstream>

#include "core/atomic_file.h"
#include "gate/report_json.h"
#include "reference/rotation.h"

namespace ropecheck::cli {

void add_report_options(CLI::App* cmd, ReportFiles& f) {
  cmd->add_option("--summary", f.summary, "Also write the summary table (markdown) to this file");
  cmd->add_option("--junit", f.junit, "Also write JUnit XML (one testcase per implementation x property)");
  cmd->add_option("--report", f.html, "Also write a self-contained HTML report with error-vs-position plots");
  cmd->add_option("--json", f.json, "Also write the report as JSON, what `ropecheck merge` joins shard by shard");
}

int finish_report(const GateReport& r, const ReportFiles& f) {
  print_summary(r, std::cout);
  if (!r.passed()) {
    std::cout << "\n";
    print_failures(r, std::cout);
  }
  try {
    if (!f.summary.empty()) {
      std::ostringstream s;
      print_summary(r, s);
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
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return r.passed() ? 0 : 1;
}

}  // namespace ropecheck::cli
