// SPDX-License-Identifier: MIT
// The `ropecheck` command: one subcommand per file, each argument handling
// only; everything it runs lives in the libraries below.
#include "cli/run_main.h"

int main(int argc, char** argv) { return ropecheck::cli::run_main(argc, argv); }
