// SPDX-License-Identifier: MIT
// Test helper: run the gate over some implementations and keep the printed
// tables and failures (with reproduce lines) for the assertion message.
#ifndef ROPECHECK_GATE_TEST_GATE_RUN_H_
#define ROPECHECK_GATE_TEST_GATE_RUN_H_

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gate/gate.h"

namespace ropecheck {

struct GateRun {
  GateReport report;
  std::string text;  // summary tables, then failures
};

// Quick suite, seed 1; `cases` limits it to its first cases, `properties`
// to those properties (empty: all).
inline GateRun run_quick_gate(std::vector<const ropecheck_impl_t*> impls, std::optional<int> cases = std::nullopt,
                              std::vector<std::string> properties = {}) {
  GateOptions o;
  o.suite = Suite::kQuick;
  o.seed = 1;
  o.cases = cases;
  o.impls = std::move(impls);
  o.properties = std::move(properties);
  GateRun g{run_gate(o), {}};
  std::ostringstream os;
  print_summary(g.report, os);
  print_failures(g.report, os);
  g.text = os.str();
  return g;
}

// The figures of one property in an implementation's report.
inline const PropertyStats& property_stats(const ImplReport& r, const std::string& name) {
  for (const auto& [n, s] : r.properties)
    if (n == name) return s;
  static const PropertyStats none;
  ADD_FAILURE() << "no property " << name;
  return none;
}

}  // namespace ropecheck

#endif  // ROPECHECK_GATE_TEST_GATE_RUN_H_
