// `ropecheck check`: the gate over the selected implementations (or one
// shard of its cases, on N threads), its tables on stdout, a reproduce line
// per failure, and the optional markdown / JUnit / HTML / JSON reports.
// Exit 0: every case judged and passed; 1: a failure; 2: bad arguments.
#ifndef ROPECHECK_CLI_CHECK_COMMAND_H_
#define ROPECHECK_CLI_CHECK_COMMAND_H_

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/impl_selection.h"
#include "cli/report_files.h"

namespace ropecheck::cli {

struct CheckArgs {
  SelectionArgs selection;
  std::string suite = "quick";
  std::string seed = "1";
  int case_index = -1;
  int cases = -1;
  ReportFiles files;
  std::string shard;  // "i/n"
  int jobs = 1;
  std::vector<std::string> properties;
  bool quiet = false;
  int threads = 1;
  std::string config_path;
};

CLI::App* add_check_command(CLI::App& app, CheckArgs& a);
int run_check(const CheckArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_CHECK_COMMAND_H_
