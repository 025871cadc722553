// SPDX-License-Identifier: MIT
// `ropecheck check --policies`: every selected kernel judged (conformance
// alone) under every catalogue policy in turn, its own declaration's policy
// swapped out, and per policy pass or fail, the cases judged and the worst
// error in that policy's budget units (and the mean): which arithmetic the
// code matches.
// The one to declare is the tightest passing policy (docs/PLUGINS.md, "Which
// policy to declare"): among those passing, the one whose budgets the
// kernel's errors fill the most on average. ropecheck.policies is the same
// for a Python kernel.
#ifndef ROPECHECK_CLI_POLICIES_REPORT_H_
#define ROPECHECK_CLI_POLICIES_REPORT_H_

#include <ostream>

#include "gate/gate.h"

namespace ropecheck::cli {

// Runs `base` (its impls, suite, seed, cases) once per catalogue policy and
// prints one table per kernel to `out`. 0 when every kernel passes under some
// policy, 1 when one passes under none, 130/143 when interrupted.
int run_policies(const GateOptions& base, std::ostream& out);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_POLICIES_REPORT_H_
