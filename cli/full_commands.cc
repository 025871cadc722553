// SPDX-License-Identifier: MIT
// cli/build_commands.h in a build with every subcommand (the release preset).
#include "cli/build_commands.h"

namespace ropecheck::cli {

void add_build_commands(CommandLine& cl) {
  cl.fuzz = add_fuzz_command(cl.app, cl.fuzz_args);
  cl.mutants = add_mutants_command(cl.app, cl.mutants_args);
  cl.golden = add_golden_command(cl.app, cl.golden_args);
  cl.bench = add_bench_command(cl.app, cl.bench_args);
}

std::string validate_build_command(const CommandLine& cl) {
  if (*cl.golden) return validate_golden_args(cl.golden_args);
  if (*cl.bench) return validate_bench_args(cl.bench_args);
  return {};
}

int run_build_command(CommandLine& cl, const char* argv0) {
  if (*cl.fuzz) return run_fuzz(cl.fuzz_args, argv0);
  if (*cl.mutants) return run_mutants(cl.mutants_args);
  if (*cl.golden) return run_golden(cl.golden_args);
  if (*cl.bench) return run_bench_command(cl.bench_args);
  return kNotABuildCommand;
}

}  // namespace ropecheck::cli
