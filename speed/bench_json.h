// SPDX-License-Identifier: MIT
// A bench report as JSON (`ropecheck bench --json`), read back by `bench
// compare`: {"format": "ropecheck-bench", "version": 1, "sha256": the
// checksum of the report, "bench": the report}. Every series keeps each
// call's time, so a reader recomputes the statistics; the rates and ratios
// are written beside them for other tools. The reader refuses a file whose
// checksum does not match, and names the field and bound of anything else
// wrong (ref::ConfigError), never trusting a size it reads.
#ifndef ROPECHECK_SPEED_BENCH_JSON_H_
#define ROPECHECK_SPEED_BENCH_JSON_H_

#include <string>
#include <string_view>

#include "speed/bench_report.h"

namespace ropecheck::speed {

inline constexpr char kBenchFormat[] = "ropecheck-bench";
inline constexpr int kBenchVersion = 1;

std::string bench_to_json(const BenchReport& r);
BenchReport bench_from_json(std::string_view text);

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_BENCH_JSON_H_
