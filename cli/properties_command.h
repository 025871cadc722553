// SPDX-License-Identifier: MIT
// `ropecheck properties`: the kernel properties the gate runs.
#ifndef ROPECHECK_CLI_PROPERTIES_COMMAND_H_
#define ROPECHECK_CLI_PROPERTIES_COMMAND_H_

#include <CLI/CLI.hpp>

namespace ropecheck::cli {

CLI::App* add_properties_command(CLI::App& app);
int run_properties();

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_PROPERTIES_COMMAND_H_
