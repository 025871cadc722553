// SPDX-License-Identifier: MIT
// The definitions of speed/timing_stats.h.
#include "speed/timing_stats.h"

#include <algorithm>
#include <cmath>

namespace ropecheck::speed {

double quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double h = p * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

void SeriesStats::summarize() {
  std::vector<double> s = seconds;
  std::sort(s.begin(), s.end());
  median = quantile(s, 0.5);
  min = s.empty() ? 0 : s.front();
  q1 = quantile(s, 0.25);
  q3 = quantile(s, 0.75);
}

}  // namespace ropecheck::speed
