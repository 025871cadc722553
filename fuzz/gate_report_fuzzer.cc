// SPDX-License-Identifier: MIT
// Fuzzes the reader of the gate's JSON report (gate/report_json.h), what
// `ropecheck merge` reads from every shard: any input gives a GateReport or
// a ConfigError naming a field by its JSON path. The checksum is checked
// first, so the harness also hands the "report" object of any JSON input
// straight to the field reader behind it. An accepted report written back
// must read back to the same tables and failures.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "gate/report_json.h"
#include "reference/freq_spec.h"

namespace {

using namespace ropecheck;

std::string rendered(const GateReport& r) {
  std::ostringstream os;
  print_summary(r, os);
  print_failures(r, os, 1 << 30);
  return os.str();
}

void check_round_trip(const GateReport& r) {
  const GateReport back = report_from_json(report_to_json(r));
  if (rendered(back) != rendered(r) || back.shard_index != r.shard_index || back.total_cases != r.total_cases) {
    std::fprintf(stderr, "gate report changed in a write/read round trip\n");
    std::abort();
  }
}

// Errors must name a field by its JSON path ("$", "$.report.seed", ...).
void check_error(const ref::ConfigError& e) {
  if (e.field().empty() || e.field()[0] != '$') {
    std::fprintf(stderr, "error does not name a JSON path: %s\n", e.what());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 20)) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check_round_trip(report_from_json(text));
  } catch (const ref::ConfigError& e) {
    check_error(e);
  }
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("report")) return 0;
  try {
    check_round_trip(report_from_json_value(doc["report"], "$.report"));
  } catch (const ref::ConfigError& e) {
    check_error(e);
  }
  return 0;
}
