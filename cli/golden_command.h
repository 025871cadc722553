// SPDX-License-Identifier: MIT
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
  std::string config;  // golden export --config
  bool committed_size = false;  // golden export --config --committed-size
  std::string out_dir;
  std::string format = "safetensors";
  bool no_outputs = false;  // golden export --no-outputs
  int jobs = 0;  // --jobs (--threads, deprecated)
  std::string dir;
  SelectionArgs selection;
  bool quiet = false;
  std::string expect_sha256;
  int min_judged = 1;
};

// Adds the `golden` subcommand and its two subcommands to the app.
CLI::App* add_golden_command(CLI::App& app, GoldenArgs& a);
// The values' own checks (format, suite name, hex digest); "" when fine.
std::string validate_golden_args(const GoldenArgs& a);
// Verify exits 0 only when every implementation was judged on at least
// --min-judged cases of a non-empty export pinned by SHA256SUMS, and passed.
int run_golden(const GoldenArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_GOLDEN_COMMAND_H_
