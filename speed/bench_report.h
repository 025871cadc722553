// SPDX-License-Identifier: MIT
// What `ropecheck bench` measured: one row per kernel, model, step (prefill,
// decode), dtype, layout and thread count, with the kernel's timed calls and
// the two baselines' of the same row (speed/baseline_kernels.h), or the
// named failure that stopped the row, or why it was skipped; the run's
// machine, date and settings. Its JSON form (speed/bench_json.h) is what
// `ropecheck bench compare` reads.
#ifndef ROPECHECK_SPEED_BENCH_REPORT_H_
#define ROPECHECK_SPEED_BENCH_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"
#include "speed/bench_shapes.h"
#include "speed/timing_stats.h"

namespace ropecheck::speed {

enum class RowStatus { kTimed, kFailed, kSkipped };
const char* row_status_name(RowStatus s);

struct BenchRow {
  std::string impl;
  std::string model;
  Step step = Step::kPrefill;
  std::int64_t tokens = 0;
  int q_heads = 0, kv_heads = 0, head_dim = 0, rotary_dim = 0;
  std::string scheme;  // the frequency scheme, described
  RowChoice choice;
  RowStatus status = RowStatus::kTimed;
  std::string reason;  // why it failed or was skipped
  // The kernel's timed calls and the baselines' (copy out of place, the
  // in-place read-modify-write pass), interleaved at random in one run.
  SeriesStats kernel, copy, rmw;
  int judged = 0;  // kernel calls whose output the judge checked (all passed when timed)
  // The kernel's median rate beat the in-place pass's fastest call by more
  // than both spreads (roofline_exceeded): a time that cannot be right. A
  // flagged row is failed.
  bool faster_than_roofline = false;

  // "simd_cache llama-3.1-8b prefill f32 half_split 1t": the row's name.
  std::string name() const;
  // The row's identity for compare: everything but the measurements
  // (shape_key: everything but the kernel's name too).
  std::string key() const { return impl + " " + shape_key(); }
  std::string shape_key() const;
  // The kernel's rate over a baseline's, each at its median time (best_:
  // each at its fastest call).
  double ratio_to(const SeriesStats& baseline) const;
  double best_ratio_to(const SeriesStats& baseline) const;
};

// Whether the kernel's median rate is above the in-place pass's fastest by
// more than the two relative interquartile ranges: the rule that flags a row.
bool roofline_exceeded(const SeriesStats& kernel, const SeriesStats& rmw);

struct BenchReport {
  std::string machine;  // CPU model and the cores this process may use
  std::string date;     // UTC, ISO 8601
  std::string load_before, load_after;  // /proc/loadavg's three averages
  std::string caches;   // "warm" or "cold"
  int repetitions = 0;  // timed calls per series
  int judged_per_row = 0;
  std::string inputs;  // how the kernel's inputs vary from call to call
  bool isolated = true;
  std::uint64_t seed = 0;  // of the inputs and the call order
  std::vector<BenchRow> rows;
  // Per kernel that got no timed row: its name and why.
  std::vector<std::pair<std::string, std::string>> impl_failures;
  std::string interrupted;  // "SIGINT" / "SIGTERM" when cut short, else empty
  double seconds = 0;       // the run's wall time

  // Every row timed or skipped, none failed, every kernel timed on a row.
  bool passed() const;
};

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_BENCH_REPORT_H_
