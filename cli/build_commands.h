// SPDX-License-Identifier: MIT
// The subcommands whose presence depends on the build: fuzz, mutants, golden
// and bench. The release preset links them with the libraries they run
// (cli/full_commands.cc: golden/, speed/, mutants/); the gate preset, which
// README's first command builds, links the conformance check alone and names
// them as not built (cli/gate_only_commands.cc): a fresh machine's first
// verdict then waits on no golden exporter, benchmark or mutant catalogue
// (a quarter of the build's compilation, bench/RESULTS.md).
#ifndef ROPECHECK_CLI_BUILD_COMMANDS_H_
#define ROPECHECK_CLI_BUILD_COMMANDS_H_

#include <string>

#include "cli/command_line.h"

namespace ropecheck::cli {

// Adds the four subcommands to cl.app, setting cl.fuzz, cl.mutants,
// cl.golden and cl.bench.
void add_build_commands(CommandLine& cl);
// The parsed values' own checks of the one that was given; "" when fine or
// when none of the four was given.
std::string validate_build_command(const CommandLine& cl);
// Returned by run_build_command when none of the four was given.
inline constexpr int kNotABuildCommand = -2;
// Runs the one that was given: its exit status (2 where this build lacks it).
int run_build_command(CommandLine& cl, const char* argv0);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_BUILD_COMMANDS_H_
