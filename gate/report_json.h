// SPDX-License-Identifier: MIT
// The gate's report as JSON, the machine-readable form a shard writes
// (`check --shard i/n --json FILE`) and `ropecheck merge` reads back into
// the same GateReport: every count, every worst error (exact doubles,
// "inf" for an infinite one), every curve point with its case, every
// failure with its reproduce line. The file carries the SHA-256 of its
// report, verified on reading; every field is checked and an error names
// it by its path ("$.report.implementations[1].families[0].passed").
#ifndef ROPECHECK_GATE_REPORT_JSON_H_
#define ROPECHECK_GATE_REPORT_JSON_H_

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gate/gate.h"

namespace ropecheck {

inline constexpr const char* kGateReportFormat = "ropecheck-gate-report";
// 4: each implementation's policy, ulps against the correctly rounded result
// per position, a failure's first wrong element; 3: shapes (size class x
// memory layout), sampled counts; 2: the verdict floor, isolation,
// interrupts, skip reasons, budget terms and ulps per position.
inline constexpr int kGateReportVersion = 4;

// The whole file: {"format", "version", "sha256", "report"}.
std::string report_to_json(const GateReport& r);

// Reads a file's text: format, version, checksum, then every field.
// Throws ref::ConfigError (field, what) on anything malformed.
GateReport report_from_json(std::string_view text);

// The "report" object alone, after the checksum (the fuzz harness reaches
// it directly); `path` prefixes field names in errors.
GateReport report_from_json_value(const nlohmann::json& report, const std::string& path);

}  // namespace ropecheck

#endif  // ROPECHECK_GATE_REPORT_JSON_H_
