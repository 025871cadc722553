// SPDX-License-Identifier: MIT
// `ropecheck mutants`: the suite's power. Runs the default gate against
// every mutant plugin (mutants/) and every correct implementation, and
// reports per mutant whether it was killed, by which properties, after how
// many cases and how long. Exit 0 only when every mutant is killed and no
// correct implementation fails.
#ifndef ROPECHECK_CLI_MUTANTS_COMMAND_H_
#define ROPECHECK_CLI_MUTANTS_COMMAND_H_

#include <CLI/CLI.hpp>

#include <string>

namespace ropecheck::cli {

struct MutantsArgs {
  std::string dir;  // default: the build's mutants/plugins
  std::string summary_path;
  double timeout_seconds = 10;
  bool skip_correct = false;  // mutants only (the built-ins are gated elsewhere)
};

CLI::App* add_mutants_command(CLI::App& app, MutantsArgs& a);
int run_mutants(const MutantsArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_MUTANTS_COMMAND_H_
