// SPDX-License-Identifier: MIT
// `ropecheck zoo`: the model zoo (golden/zoo/*.json, docs/ZOO.md): each
// family's rope type per layer type, its NoPE layers, and where its values
// were read.
#ifndef ROPECHECK_CLI_ZOO_COMMAND_H_
#define ROPECHECK_CLI_ZOO_COMMAND_H_

#include <string>

#include <CLI/CLI.hpp>

namespace ropecheck::cli {

struct ZooArgs {
  std::string dir;  // "" : the source tree's golden/zoo
};

CLI::App* add_zoo_command(CLI::App& app, ZooArgs& a);
int run_zoo(const ZooArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_ZOO_COMMAND_H_
