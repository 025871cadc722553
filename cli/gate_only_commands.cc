// SPDX-License-Identifier: MIT
// cli/build_commands.h in the gate preset's build: fuzz, mutants, golden and
// bench are named, take any arguments, and say how to get them (exit 2), so
// a script calling one learns why rather than meeting an unknown subcommand.
#include "cli/build_commands.h"

#include <iostream>

namespace ropecheck::cli {
namespace {

CLI::App* not_built(CLI::App& app, const char* name, const char* what) {
  CLI::App* sub = app.add_subcommand(name, std::string(what) + " (not in this build: the release preset builds it)");
  sub->prefix_command();  // every argument after the name is accepted, and ignored
  return sub;
}

}  // namespace

void add_build_commands(CommandLine& cl) {
  cl.fuzz = not_built(cl.app, "fuzz", "Fuzz one implementation against the reference");
  cl.mutants = not_built(cl.app, "mutants", "Measure the gate's power on the bug catalogue");
  cl.golden = not_built(cl.app, "golden", "Export or verify golden vectors");
  cl.bench = not_built(cl.app, "bench", "Time kernels on a model's shapes");
}

std::string validate_build_command(const CommandLine&) { return {}; }

int run_build_command(CommandLine& cl, const char*) {
  for (const CLI::App* sub : {cl.fuzz, cl.mutants, cl.golden, cl.bench})
    if (*sub) {
      std::cerr << "error: ropecheck " << sub->get_name()
                << " is not in this build: the gate preset (README's first command) builds the conformance check "
                   "alone. Build every subcommand with\n  cmake --preset release && cmake --build --preset release\n"
                   "and run ./build/release/ropecheck "
                << sub->get_name() << "\n";
      return 2;
    }
  return kNotABuildCommand;
}

}  // namespace ropecheck::cli
