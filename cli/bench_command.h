// SPDX-License-Identifier: MIT
// `ropecheck bench`: the speed of the selected kernels (--impl, --plugin) on
// a model's prefill and decode shapes (the zoo's families, --model; or any
// config.json, --config), every storage dtype and layout each declares, at
// each --threads count, beside a memcpy of the same bytes and the in-place
// read-modify-write pass timed in the same run, with timing nothing can
// game (speed/bench_run.h); a table on stdout, --json and --report (HTML).
// `ropecheck bench compare A.json B.json`: a kernel change judged on speed
// (speed/bench_compare.h).
// Exit 0: every row within the kernels' declarations timed, its judged
// outputs right, nothing flagged (compare: no regression); 1: a failure
// (compare: a regression); 2: bad arguments or files; 130 / 143:
// interrupted.
#ifndef ROPECHECK_CLI_BENCH_COMMAND_H_
#define ROPECHECK_CLI_BENCH_COMMAND_H_

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/impl_selection.h"
#include "speed/bench_shapes.h"

namespace ropecheck::cli {

struct BenchArgs {
  SelectionArgs selection;
  std::vector<std::string> models;  // zoo families (default: llama-3.1-8b when no --config)
  std::vector<std::string> configs;
  std::vector<std::string> steps;  // prefill, decode (default: both)
  long long prefill_tokens = speed::kPrefillTokens, decode_tokens = speed::kDecodeTokens;
  std::vector<std::string> dtypes, layouts;
  std::vector<int> threads{1};
  int repetitions = 10;
  int judged = 0;  // 0: every timed call
  bool cold = false;
  std::string seed = "random";
  std::string json;
  std::string html;  // --report
  bool quiet = false;
  CLI::App* compare = nullptr;
  std::vector<std::string> compare_files;  // A.json B.json
};

CLI::App* add_bench_command(CLI::App& app, BenchArgs& a);
// Everything the values alone decide; an error naming the option and its
// bound, or "".
std::string validate_bench_args(const BenchArgs& a);
int run_bench_command(const BenchArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_BENCH_COMMAND_H_
