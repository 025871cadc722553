// SPDX-License-Identifier: MIT
// The report files `check` and `merge` write beside their tables: markdown
// (--summary), JUnit (--junit), self-contained HTML (--report) and the
// machine-readable JSON a shard hands to `merge` (--json), each atomically.
#ifndef ROPECHECK_CLI_REPORT_FILES_H_
#define ROPECHECK_CLI_REPORT_FILES_H_

#include <CLI/CLI.hpp>

#include <string>

#include "gate/gate.h"

namespace ropecheck::cli {

struct ReportFiles {
  std::string summary, junit, html, json;
};

void add_report_options(CLI::App* cmd, ReportFiles& f);
// Prints the tables (and the failures) on stdout and writes the files asked
// for.
// `extra`: more tables (check's --slack, --within), after the summary on
// stdout and in --summary. Returns the exit code: 0 a verdict over judged
// cases, every one passed; 1 a failure; 2 a file could not be written;
// 128 + signal for an interrupted run (its partial reports still written).
int finish_report(const GateReport& r, const ReportFiles& f, const std::string& extra = {});

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_REPORT_FILES_H_
