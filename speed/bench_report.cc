// SPDX-License-Identifier: MIT
// What `ropecheck bench` measured: the definitions of speed/bench_report.h.
#include "speed/bench_report.h"

#include "ropecheck/names.h"

namespace ropecheck::speed {

const char* row_status_name(RowStatus s) {
  switch (s) {
    case RowStatus::kTimed:
      return "timed";
    case RowStatus::kFailed:
      return "failed";
    case RowStatus::kSkipped:
      return "skipped";
  }
  return "?";
}

std::string BenchRow::name() const {
  return impl + " " + model + " " + step_name(step) + " " + std::string(dtype_name(choice.dtype)) + " " +
         std::string(layout_name(choice.layout)) + " " + std::to_string(choice.threads) + "t";
}

std::string BenchRow::shape_key() const {
  return model + " " + step_name(step) + " " + std::string(dtype_name(choice.dtype)) + " " +
         std::string(layout_name(choice.layout)) + " " + std::to_string(choice.threads) + "t tokens=" + std::to_string(tokens) + " heads=" + std::to_string(q_heads) + "/" +
         std::to_string(kv_heads) + " head_dim=" + std::to_string(head_dim) + "/" + std::to_string(rotary_dim) +
         (choice.in_place ? " in_place" : " out_of_place") +
         (choice.position_type == ROPECHECK_INDEX_INT32 ? " i32" : " i64") + " " + scheme;
}

double BenchRow::ratio_to(const SeriesStats& baseline) const {
  const double b = baseline.gbps();
  return b > 0 ? kernel.gbps() / b : 0;
}

double BenchRow::best_ratio_to(const SeriesStats& baseline) const {
  const double b = baseline.best_gbps();
  return b > 0 ? kernel.best_gbps() / b : 0;
}

bool roofline_exceeded(const SeriesStats& kernel, const SeriesStats& rmw) {
  if (kernel.empty() || rmw.empty()) return false;
  return kernel.gbps() > rmw.best_gbps() * (1 + rmw.rel_iqr() + kernel.rel_iqr());
}

bool BenchReport::passed() const {
  if (!interrupted.empty() || !impl_failures.empty()) return false;
  for (const BenchRow& r : rows)
    if (r.status == RowStatus::kFailed) return false;
  return true;
}

}  // namespace ropecheck::speed
