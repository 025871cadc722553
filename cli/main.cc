// The `ropecheck` command: one subcommand per file, each argument handling
// only; everything it runs lives in the libraries below.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "cli/check_command.h"
#include "cli/fuzz_command.h"
#include "cli/golden_command.h"
#include "cli/list_command.h"
#include "cli/merge_command.h"
#include "cli/mutants_command.h"
#include "cli/properties_command.h"

int main(int argc, char** argv) {
  using namespace ropecheck::cli;
  CLI::App app{"ropecheck: verification of RoPE kernels against a high-precision reference"};
  app.require_subcommand(1);
  CLI::App* list = add_list_command(app);
  CheckArgs check_args;
  CLI::App* check = add_check_command(app, check_args);
  MergeArgs merge_args;
  CLI::App* merge = add_merge_command(app, merge_args);
  CLI::App* props = add_properties_command(app);
  FuzzArgs fuzz_args;
  CLI::App* fuzz = add_fuzz_command(app, fuzz_args);
  MutantsArgs mutants_args;
  CLI::App* mutants = add_mutants_command(app, mutants_args);
  GoldenArgs golden_args;
  CLI::App* golden = add_golden_command(app, golden_args);
  CLI11_PARSE(app, argc, argv);
  try {
    if (*list) return run_list();
    if (*check) return run_check(check_args);
    if (*merge) return run_merge(merge_args);
    if (*props) return run_properties();
    if (*fuzz) return run_fuzz(fuzz_args, argv[0]);
    if (*mutants) return run_mutants(mutants_args);
    if (*golden) return run_golden(golden_args);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}
