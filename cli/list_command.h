// SPDX-License-Identifier: MIT
// `ropecheck list`: the built-in implementations with their target,
// capabilities and declared precision policy.
#ifndef ROPECHECK_CLI_LIST_COMMAND_H_
#define ROPECHECK_CLI_LIST_COMMAND_H_

#include <CLI/CLI.hpp>

namespace ropecheck::cli {

CLI::App* add_list_command(CLI::App& app);
int run_list();

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_LIST_COMMAND_H_
