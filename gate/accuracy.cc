// SPDX-License-Identifier: MIT
// The definitions of gate/accuracy.h.
#include "gate/accuracy.h"

#include <algorithm>
#include <cmath>

#include "core/cases/cases.h"
#include "core/report/report_text.h"

namespace ropecheck {

double beyond_final_rounding(double pair_ulps) {
  // An infinite (or NaN, stored as infinite) error stays infinite.
  return std::max(0.0, pair_ulps - 0.5);
}

std::vector<DtypeAccuracy> accuracy_by_dtype(const ImplReport& i) {
  std::vector<DtypeAccuracy> out;
  for (const auto& [dtype, by_position] : i.ulps_by_position) {
    DtypeAccuracy d;
    d.dtype = dtype;
    std::map<int, AccuracyPoint> buckets;
    for (const auto& [position, at] : by_position) {
      const double beyond = beyond_final_rounding(at.worst_ulps);
      RangeAccuracy& r = d.ranges[static_cast<std::size_t>(position_bin(position))];
      ++r.positions;
      r.worst_rounded_ulps = std::max(r.worst_rounded_ulps, at.worst_rounded_ulps);
      if (r.case_index < 0 || beyond > r.worst_beyond) {
        r.worst_beyond = beyond;
        r.case_index = at.case_index;
      }
      const double x = std::log2(static_cast<double>(position) + 1);
      const int bucket = static_cast<int>(std::floor(x * 8));
      auto [it, fresh] = buckets.try_emplace(bucket);
      AccuracyPoint& p = it->second;
      if (fresh) p.log2_position = x;
      p.worst_rounded_ulps = std::max(p.worst_rounded_ulps, at.worst_rounded_ulps);
      p.worst_beyond = std::max(p.worst_beyond, beyond);
    }
    for (const auto& [bucket, p] : buckets) d.curve.push_back(p);
    out.push_back(std::move(d));
  }
  return out;
}

Reach reach_within(const std::map<std::int64_t, UlpsAt>& by_position, double ulps) {
  Reach r;
  r.ulps = ulps;
  for (const auto& [position, at] : by_position) {
    if (!(at.worst_ulps <= ulps)) {
      r.beyond = position;
      r.beyond_ulps = at.worst_ulps;
      r.beyond_case = at.case_index;
      break;
    }
    r.holds = position;
  }
  return r;
}

std::string reach_text(const Reach& r) {
  if (r.holds < 0) return "none";
  std::string s = std::to_string(r.holds);
  if (r.holds > 0) s += " (2^" + format_number(std::log2(static_cast<double>(r.holds)), "%.1f") + ")";
  return s;
}

}  // namespace ropecheck
