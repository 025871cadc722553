// SPDX-License-Identifier: MIT
// The times of one series of timed calls (a kernel's, or a baseline's, in one
// bench row) and what a report says of them: the median, the fastest call
// and the interquartile range, and the rate at which the calls moved their
// bytes. Quartiles interpolate linearly between order statistics (Hyndman
// and Fan's definition 7, numpy.percentile's default).
#ifndef ROPECHECK_SPEED_TIMING_STATS_H_
#define ROPECHECK_SPEED_TIMING_STATS_H_

#include <vector>

namespace ropecheck::speed {

struct SeriesStats {
  std::vector<double> seconds;  // each timed call, in the order they ran
  double bytes = 0;             // moved per call
  double median = 0, min = 0, q1 = 0, q3 = 0;

  // Filled from `seconds` (all zero when empty).
  void summarize();
  bool empty() const { return seconds.empty(); }
  double gbps() const { return median > 0 ? bytes / median / 1e9 : 0; }     // at the median time
  double best_gbps() const { return min > 0 ? bytes / min / 1e9 : 0; }      // at the fastest call
  double rel_iqr() const { return median > 0 ? (q3 - q1) / median : 0; }  // the spread, relative
};

// The p-quantile (0 <= p <= 1) of sorted values, definition 7.
double quantile(const std::vector<double>& sorted, double p);

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_TIMING_STATS_H_
