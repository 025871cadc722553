// SPDX-License-Identifier: MIT
// The `ropecheck` command line: every subcommand's options, parsed and
// validated without running anything and without exiting, so the parser is
// testable and fuzzable in process (fuzz/cli_args_fuzzer.cc). Validation here
// is everything a value can be judged by alone; files and plugins are read
// when the command runs.
#ifndef ROPECHECK_CLI_COMMAND_LINE_H_
#define ROPECHECK_CLI_COMMAND_LINE_H_

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "cli/bench_command.h"
#include "cli/check_command.h"
#include "cli/fuzz_command.h"
#include "cli/golden_command.h"
#include "cli/merge_command.h"
#include "cli/mutants_command.h"
#include "cli/zoo_command.h"

namespace ropecheck::cli {

struct CommandLine {
  CommandLine();
  CLI::App app{"ropecheck: verification of RoPE kernels against a high-precision reference"};
  CheckArgs check_args;
  FuzzArgs fuzz_args;
  MutantsArgs mutants_args;
  GoldenArgs golden_args;
  MergeArgs merge_args;
  ZooArgs zoo_args;
  BenchArgs bench_args;
  CLI::App *zoo = nullptr, *bench = nullptr;
  CLI::App *list = nullptr, *check = nullptr, *props = nullptr, *fuzz = nullptr, *mutants = nullptr,
           *golden = nullptr, *merge = nullptr;
};

// Returned by parse_command_line when the command is to run.
inline constexpr int kRunCommand = -1;

// kRunCommand, or the exit status: 0 after --help, 2 for a bad value (with a
// message naming the option and its bound on `err`).
int parse_command_line(CommandLine& cl, int argc, const char* const* argv, std::ostream& out, std::ostream& err);
// Runs the parsed command; its exit status (0 pass, 1 fail, 2 bad input,
// 128 + signal when interrupted).
int run_command(CommandLine& cl, const char* argv0);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_COMMAND_LINE_H_
