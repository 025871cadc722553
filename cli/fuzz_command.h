// SPDX-License-Identifier: MIT
// `ropecheck fuzz`: runs the differential libFuzzer harness against one
// implementation (built by the `fuzz` preset), streams libFuzzer's progress
// (execs/s, coverage, corpus), prints every --rate-every seconds the
// executions so far and their rate (all jobs together), prints at the end the executions per second
// and what was judged (cli/fuzz_tally.h: families, dtypes, layouts, fused
// forms, position ranges, multi-axis forms, as counts), and on a finding
// names the saved input and the one-line command that replays it without
// clang. A plugin's kernels run isolated as `ropecheck check` runs them
// (a worker per kernel by default).
#ifndef ROPECHECK_CLI_FUZZ_COMMAND_H_
#define ROPECHECK_CLI_FUZZ_COMMAND_H_

#include <CLI/CLI.hpp>

#include <string>

namespace ropecheck::cli {

struct FuzzArgs {
  std::string impl;    // empty with a plugin: every kernel of the plugin
  std::string plugin;  // --plugin: fuzz a plugin's kernels
  int seconds = 60;
  int jobs = 1;
  int rate_every = 10;  // --rate-every: seconds between progress lines (0: none)
  std::string out_dir;  // default: ropecheck-fuzz-<impl>
  std::string fuzzer;   // default: the fuzz tree next to this binary's tree
  bool isolation = true;               // --no-isolation: a plugin's kernels in the fuzzer's process
  std::string isolation_mode = "worker";  // --isolation worker|fork (a plugin's kernels)
};

CLI::App* add_fuzz_command(CLI::App& app, FuzzArgs& a);
// self_path: argv[0], to find the fuzz tree beside this build.
int run_fuzz(const FuzzArgs& a, const std::string& self_path);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_FUZZ_COMMAND_H_
