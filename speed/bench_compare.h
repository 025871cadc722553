// SPDX-License-Identifier: MIT
// `ropecheck bench compare A.json B.json`: a kernel change judged on speed in
// CI. Each row timed in both runs is compared on its ratio to the in-place
// pass of its own run (the kernel's rate over the baseline's): a slower
// machine slows the baseline as it slows the kernel, so the ratio keeps the
// work. The ratio is taken twice, at the median calls and at the fastest
// ones (other work on a machine only ever slows a call, so the fastest is
// the least disturbed: bench/rope_bench.cc), and B regresses on a row when
// A's ratio over B's exceeds 1 + the row's noise on both (one disturbed
// statistic is not a regression). The noise: the four series' relative
// interquartile ranges (the kernel's and the baseline's, in A and in B)
// added in quadrature, as independent errors add, stated beside every
// verdict. It is the spread of single calls, not of their medians (about
// 1/sqrt(n) of it), so a same-kernel pair of runs stays inside it by
// several standard errors of the medians' ratio; load that changes between
// the two runs is not in it, and moves a compute-bound kernel's ratio to a
// memory pass (docs/GUIDE.md). A row A timed that B failed, or lacks, is a
// regression too. Rows are matched by kernel name and shape; when each
// report holds one kernel, by shape alone (the kernel under review may be
// renamed between the two builds).
#ifndef ROPECHECK_SPEED_BENCH_COMPARE_H_
#define ROPECHECK_SPEED_BENCH_COMPARE_H_

#include <ostream>
#include <string>
#include <vector>

#include "speed/bench_report.h"

namespace ropecheck::speed {

enum class Change { kWithinNoise, kSlower, kFaster, kFailedInB, kMissingInB, kNotComparable };

struct RowComparison {
  std::string name;
  Change change = Change::kWithinNoise;
  double ratio_a = 0, ratio_b = 0;  // kernel / in-place pass, each run's own
  double slowdown = 0;              // ratio_a / ratio_b: above 1, B is slower
  double slowdown_fastest = 0;      // the same at each series' fastest call
  double noise = 0;                 // the four relative IQRs in quadrature
  std::string note;                 // why not comparable, B's failure
};

struct Comparison {
  std::vector<RowComparison> rows;
  bool by_shape = false;               // one kernel in each report: matched by shape alone
  std::vector<std::string> only_in_b;  // rows B has and A lacks
  bool regressed() const;
};

Comparison compare_bench(const BenchReport& a, const BenchReport& b);
// The table and the verdict line ("Overall: no regression" / "Overall:
// REGRESSION in N row(s)").
void print_comparison(const Comparison& c, const BenchReport& a, const BenchReport& b, std::ostream& os);

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_BENCH_COMPARE_H_
