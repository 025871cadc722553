// The `ropecheck` command: one subcommand per file, each argument handling
// only; everything it runs lives in the libraries below.
#include <iostream>

#include "cli/command_line.h"

int main(int argc, char** argv) {
  ropecheck::cli::CommandLine cl;
  const int rc = ropecheck::cli::parse_command_line(cl, argc, argv, std::cout, std::cerr);
  if (rc != ropecheck::cli::kRunCommand) return rc;
  return ropecheck::cli::run_command(cl, argv[0]);
}
