// SPDX-License-Identifier: MIT
// The gate's power on the bug catalogue (mutants/mutant_list.h), in process:
// the clean control kernel passes the default gate (so every failure below is
// its bug's, not the kernel's), and every mutant fails it, through at least
// the properties its catalogue row names. `ropecheck mutants` runs the same
// catalogue as plugins, isolated, end to end.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/isolation/isolation.h"
#include "gate/test/gate_run.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck {
namespace {

using mutant::Bug;
using mutant::BugInfo;

// Mutants are run isolated, as the gate runs any kernel it did not write:
// some write out of bounds (k_rotated_with_q_heads) or read past a cache.
// properties: the ones to run (empty: all).
GateReport default_gate(const ropecheck_impl_t* impl, bool stop_at_first_failing_case, const char* suite = "",
                        std::vector<std::string> properties = {}) {
  GateOptions o;
  o.properties = std::move(properties);
  o.suite = Suite::kQuick;
  if (*suite) {
    EXPECT_TRUE(parse_suite(suite, &o.suite)) << suite;
  }
  o.seed = 1;
  o.impls = {isolate(impl, IsolationOptions{})};
  o.stop_at_first_failing_case = stop_at_first_failing_case;
  return run_gate(o);
}

// Properties that failed at least once, with their failed-case counts.
std::map<std::string, int> failing_properties(const GateReport& r) {
  std::map<std::string, int> out;
  for (const auto& [name, s] : r.impls[0].properties)
    if (s.failed) out[name] = s.failed;
  return out;
}

TEST(MutantCatalogue, TheControlPasses) {
  const GateReport r = default_gate(mutant::mutant_impl(Bug::none), false);
  std::ostringstream os;
  print_failures(r, os);
  EXPECT_TRUE(r.passed()) << os.str();
}

// Which properties catch which bug is part of the suite's documentation
// (docs/MUTANTS.md): each property a row names must fail on its own, run
// alone over the quick suite (or the suite the row names, for a bug no quick
// case can show) until its first failing case. Rows that name none are killed
// by whatever fails first: `ropecheck mutants` (the ctest mutants_all_killed)
// runs every row that way, each mutant a plugin under isolation, end to end.
TEST(MutantCatalogue, EachNamedPropertyCatchesItsBug) {
  std::ostringstream table;
  table << "| mutant | property: cases run up to its first failing case |\n|---|---|\n";
  int rows = 0;
  for (const BugInfo& b : mutant::kBugs) {
    if (b.bug == Bug::none || !*b.must_fail) continue;
    ++rows;
    table << "| " << b.name << " |";
    std::stringstream names(b.must_fail);
    for (std::string name; std::getline(names, name, '|');) {
      const GateReport r = default_gate(mutant::mutant_impl(b.bug), true, b.suite, {name});
      const auto failing = failing_properties(r);
      EXPECT_TRUE(failing.count(name)) << b.name << " was not caught by " << name
                                       << (*b.suite ? " on its suite " : "") << b.suite;
      table << " " << name << ": " << r.cases;
    }
    table << " |\n";
  }
  EXPECT_GT(rows, 30) << "the catalogue's rows name the properties that catch them";
  std::cout << table.str();
}

}  // namespace
}  // namespace ropecheck
