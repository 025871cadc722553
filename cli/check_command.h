// `ropecheck check`: the gate over the selected implementations, its
// tables on stdout, a reproduce line per failure, and the optional
// markdown / JUnit / HTML reports. Exit 0: every case judged and passed;
// 1: a failure; 2: bad arguments.
#ifndef ROPECHECK_CLI_CHECK_COMMAND_H_
#define ROPECHECK_CLI_CHECK_COMMAND_H_

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/impl_selection.h"

namespace ropecheck::cli {

struct CheckArgs {
  SelectionArgs selection;
  std::string suite = "quick";
  std::string seed = "1";
  int case_index = -1;
  int cases = -1;
  std::string summary_path;
  std::string junit_path;
  std::string report_path;
  std::vector<std::string> properties;
  bool quiet = false;
  int threads = 1;
  std::string config_path;
  double within_ulps = -1;  // --within: report reach within this many ulps (< 0: not asked)
  bool slack = false;       // --slack: the slack table per budget term
};

CLI::App* add_check_command(CLI::App& app, CheckArgs& a);
int run_check(const CheckArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_CHECK_COMMAND_H_
