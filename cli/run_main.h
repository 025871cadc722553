// SPDX-License-Identifier: MIT
// The whole `ropecheck` command, argv to exit status: main.cc's one call.
// It lives in the library, so main.cc compiles without CLI11's headers
// (their instantiation took 17 s of a fresh build's critical path, #34).
#ifndef ROPECHECK_CLI_RUN_MAIN_H_
#define ROPECHECK_CLI_RUN_MAIN_H_

namespace ropecheck::cli {

int run_main(int argc, char** argv);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_RUN_MAIN_H_
