// The `ropecheck` command: one subcommand per file, each argument handling
// only; everything it runs lives in the libraries below.
#include <iostream>

#include "cli/command_line.h"
#include "cli/verdict_supervisor.h"

int main(int argc, char** argv) {
  ropecheck::cli::CommandLine cl;
  const int rc = ropecheck::cli::parse_command_line(cl, argc, argv, std::cout, std::cerr);
  if (rc != ropecheck::cli::kRunCommand) return rc;
  // Exit status 0 only with a verdict written (cli/verdict_supervisor.h).
  return ropecheck::cli::run_supervised([&] { return ropecheck::cli::run_command(cl, argv[0]); });
}
