// SPDX-License-Identifier: MIT
// `ropecheck bench`'s engine: every kernel on every row it declares
// (speed/bench_shapes.h), each row a series of timed calls of the kernel
// and of the two baselines (speed/baseline_kernels.h) interleaved at random
// in one run, after one untimed warm-up call of each. Timing nothing can
// game:
//   - every kernel call gets inputs new in every element (speed/
//     fresh_inputs.h) in buffers that move, and runs in its isolated worker
//     as in `check`
//     (core/isolation/isolation.h): a crash, a hang, a write outside its
//     buffers is a named failure;
//   - each call is timed where it runs, until the threads it started have
//     ended (core/isolation/call_timing.h); one that returns while a thread
//     it started still works is a named failure;
//   - the output of every timed call (or of a random sample, --judge) is
//     judged by the gate's judge under the declared policy
//     (core/judge/judge.h): a fast wrong kernel is a failure, not a result,
//     named with the earlier call whose output it returned, if it did;
//   - a kernel rate above the in-place pass's fastest (roofline_exceeded)
//     is flagged, and fails the row.
// A row stops at its first failure and reports no speed.
#ifndef ROPECHECK_SPEED_BENCH_RUN_H_
#define ROPECHECK_SPEED_BENCH_RUN_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "core/isolation/call_timing.h"
#include "core/isolation/isolation.h"
#include "ropecheck/kernel_abi.h"
#include "speed/bench_report.h"
#include "speed/bench_shapes.h"

namespace ropecheck::speed {

struct BenchOptions {
  std::vector<BenchModel> models;
  std::vector<BenchShape> shapes;
  std::vector<int> threads{1};
  std::uint32_t dtypes = ~0u, layouts = ~0u;  // masks (1 << enum) the rows are chosen within
  int repetitions = 10;  // timed calls per series
  int judged = 0;        // kernel calls judged per row: 0 every one, else a random sample of that many
  CacheState caches = CacheState::kWarm;
  std::uint64_t seed = 0;  // of the inputs and the order of the calls
  // The kernels come isolated or not from the caller (cli/impl_selection);
  // the baselines are isolated alike when `isolated`, with these options.
  bool isolated = true;
  IsolationOptions isolation;
  // Called after each row.
  std::function<void(const BenchRow&)> progress;
};

// Runs every row of every kernel; stops after the row under way at SIGINT /
// SIGTERM (report.interrupted). The report's machine, date and load are
// the caller's to fill.
BenchReport run_bench(const std::vector<const ropecheck_impl_t*>& impls, const BenchOptions& o);

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_BENCH_RUN_H_
