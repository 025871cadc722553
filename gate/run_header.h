// SPDX-License-Identifier: MIT
// What every shard of one gate run shares (suite, seed, the run's case
// count, the shard count, the config, the floor, isolation): set once by
// run_gate from its options, and the one thing merge_reports copies from
// the first shard and requires of the others, so a field added here is
// carried and checked by both without a second list.
#ifndef ROPECHECK_GATE_RUN_HEADER_H_
#define ROPECHECK_GATE_RUN_HEADER_H_

#include <cstdint>
#include <string>

#include "core/cases/cases.h"

namespace ropecheck {

struct RunHeader {
  Suite suite = Suite::kQuick;
  std::uint64_t seed = 0;
  int total_cases = 0;      // cases of the whole run the shards split
  int shard_count = 1;
  std::string config_path;  // --config, "" for none
  int min_judged = 1;
  bool isolated = true;
  bool operator==(const RunHeader&) const = default;
};

// The first field in which b differs from a, named as the JSON report
// names it ("seed", "shard.count", ...); "" when they agree.
std::string first_difference(const RunHeader& a, const RunHeader& b);

}  // namespace ropecheck

#endif  // ROPECHECK_GATE_RUN_HEADER_H_
