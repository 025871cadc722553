// SPDX-License-Identifier: MIT
// `ropecheck check`: the gate over the selected implementations (or one
// shard of its cases, on N threads), its tables on stdout, a reproduce line
// per failure, and the optional markdown / JUnit / HTML / JSON reports.
// Exit 0: a verdict was printed, every implementation was judged on at least
// --min-judged cases of every property that applies to it, and every judged
// case passed; 1: a failure; 2: bad arguments; 130 / 143: interrupted by
// SIGINT / SIGTERM (partial reports are still written, marked interrupted).
#ifndef ROPECHECK_CLI_CHECK_COMMAND_H_
#define ROPECHECK_CLI_CHECK_COMMAND_H_

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/impl_selection.h"
#include "cli/report_files.h"
#include "gate/gate.h"

namespace ropecheck::cli {

struct CheckArgs {
  SelectionArgs selection;
  std::string suite = "quick";
  std::string seed = "1";
  int case_index = -1;  // -1: not given (the option refuses negative values)
  int cases = -1;
  ReportFiles files;
  std::string shard;  // "i/n"
  int jobs = 1;
  std::vector<std::string> properties;
  bool quiet = false;
  int threads = 1;
  int min_judged = 1;
  std::string config_path;
  double within_ulps = -1;  // --within: report reach within this many ulps (< 0: not asked)
  bool slack = false;       // --slack: the slack table per budget term
  bool policies = false;    // --policies: every catalogue policy in turn (cli/policies_report.h)
};

CLI::App* add_check_command(CLI::App& app, CheckArgs& a);
// Everything the values alone decide (suite, seed, case range, property
// names), into `o`; an error message naming the option and its bound, or "".
std::string validate_check_args(const CheckArgs& a, GateOptions* o);
int run_check(const CheckArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_CHECK_COMMAND_H_
