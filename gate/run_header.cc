// SPDX-License-Identifier: MIT
// RunHeader's field names, in one list (gate/run_header.h).
#include "gate/run_header.h"

namespace ropecheck {

std::string first_difference(const RunHeader& a, const RunHeader& b) {
  if (a.suite != b.suite) return "suite";
  if (a.seed != b.seed) return "seed";
  if (a.shard_count != b.shard_count) return "shard.count";
  if (a.total_cases != b.total_cases) return "total_cases";
  if (a.config_path != b.config_path) return "config";
  if (a.min_judged != b.min_judged) return "min_judged";
  if (a.isolated != b.isolated) return "isolated";
  return {};
}

}  // namespace ropecheck
