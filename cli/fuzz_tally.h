// SPDX-License-Identifier: MIT
// What a differential fuzzing run covered, as counts. The harness
// (fuzz/differential_fuzzer.cc) tallies every kernel call it judged by what
// the call was (family, dtype, layout, memory layout, fused form, position
// range, multi-axis form) and writes its tally to a file of its own; `ropecheck
// fuzz` adds up the files of its jobs and prints the rate and the counts.
// The file's one format is this header's, written and read by both sides:
//   executions <n>
//   seconds <s>               (since the process's first execution)
//   <section> <key> <count>   (one line per count, zeros included)
#ifndef ROPECHECK_CLI_FUZZ_TALLY_H_
#define ROPECHECK_CLI_FUZZ_TALLY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ropecheck::cli {

struct FuzzTally {
  std::int64_t executions = 0;
  double seconds = 0;
  // Sections and keys in the order first added: the summary's order.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::int64_t>>>> sections;

  void add(std::string_view section, std::string_view key, std::int64_t n);
  void merge(const FuzzTally& o);  // every count summed; executions and seconds too
  std::int64_t count(std::string_view section, std::string_view key) const;  // 0 when absent
};

std::string tally_text(const FuzzTally& t);
// nullopt when the text is not a tally (a file cut short still reads: its
// complete lines count).
std::optional<FuzzTally> parse_tally(const std::string& text);

// The lines `ropecheck fuzz` prints at the end: the executions and their
// rate over `wall_seconds` (per job), then each section's counts.
// The progress line printed while the fuzzer runs: `executions` in
// `elapsed` seconds, `recent` of them in the last `interval`, as rates per
// job (jobs >= 1), e.g.
//   ropecheck fuzz: 20 s, 123456 executions, 6173 per second (last 10 s: 6201)
std::string rate_line(std::int64_t executions, std::int64_t recent, double elapsed, int interval, int jobs);

std::string coverage_summary(const FuzzTally& t, double wall_seconds, int jobs);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_FUZZ_TALLY_H_
