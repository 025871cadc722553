// SPDX-License-Identifier: MIT
// `ropecheck merge SHARD.json...`: the reports of `check --shard i/n --json`
// joined into the report of the whole run (the same tables, failures and
// verdict one unsharded run prints), with the same optional files as check.
// Exit 0: every case judged and passed; 1: a failure; 2: unreadable,
// corrupted or mismatched reports.
#ifndef ROPECHECK_CLI_MERGE_COMMAND_H_
#define ROPECHECK_CLI_MERGE_COMMAND_H_

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/report_files.h"

namespace ropecheck::cli {

struct MergeArgs {
  std::vector<std::string> inputs;
  ReportFiles files;
};

CLI::App* add_merge_command(CLI::App& app, MergeArgs& a);
int run_merge(const MergeArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_MERGE_COMMAND_H_
