// Test helper: run the gate over some implementations and keep the printed
// tables and failures (with reproduce lines) for the assertion message.
#ifndef ROPECHECK_GATE_TEST_GATE_RUN_H_
#define ROPECHECK_GATE_TEST_GATE_RUN_H_

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

// Quick suite, seed 1; `cases` limits it to its first cases.
inline GateRun run_quick_gate(std::vector<const ropecheck_impl_t*> impls, std::optional<int> cases = std::nullopt) {
  GateOptions o;
  o.suite = Suite::kQuick;
  o.seed = 1;
  o.cases = cases;
  o.impls = std::move(impls);
  GateRun g{run_gate(o), {}};
  std::ostringstream os;
  print_summary(g.report, os);
  print_failures(g.report, os);
  g.text = os.str();
  return g;
}

}  // namespace ropecheck

#endif  // ROPECHECK_GATE_TEST_GATE_RUN_H_
