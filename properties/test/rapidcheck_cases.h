// SPDX-License-Identifier: MIT
// Cases for the RapidCheck property tests: the one case generator
// (core/cases/cases.h) driven by RapidCheck's own generators, so a failing case
// shrinks (every choice toward its first, simplest option) and the suites,
// the fuzzer and these tests aim at the same edges.
#ifndef ROPECHECK_PROPERTIES_TEST_RAPIDCHECK_CASES_H_
#define ROPECHECK_PROPERTIES_TEST_RAPIDCHECK_CASES_H_

#include <ostream>

#include <rapidcheck.h>

#include "core/cases/cases.h"

namespace ropecheck {

// Within the standard suite's limits (head_dim to 512, positions to 2^20);
// multi_axis: every case of a multi-axis family (core/cases/axis_cases.h).
rc::Gen<Case> gen_case(bool multi_axis = false);

// How RapidCheck prints a counterexample.
void showValue(const Case& c, std::ostream& os);

}  // namespace ropecheck

#endif  // ROPECHECK_PROPERTIES_TEST_RAPIDCHECK_CASES_H_
