// `ropecheck golden export | verify`.
#ifndef ROPECHECK_CLI_GOLDEN_COMMAND_H_
#define ROPECHECK_CLI_GOLDEN_COMMAND_H_

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/impl_selection.h"

namespace ropecheck::cli {

struct GoldenArgs {
  CLI::App* export_cmd = nullptr;
  CLI::App* verify_cmd = nullptr;
  std::string suite = "smoke";
  std::string out_dir;
  std::string format = "safetensors";
  int threads = 0;
  std::string dir;
  SelectionArgs selection;
  bool quiet = false;
};

// Adds the `golden` subcommand and its two subcommands to the app.
CLI::App* add_golden_command(CLI::App& app, GoldenArgs& a);
int run_golden(const GoldenArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_GOLDEN_COMMAND_H_
