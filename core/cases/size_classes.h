// SPDX-License-Identifier: MIT
// The size classes of the suites (core/cases/cases.h, SizeClass): which class case
// `index` of a suite belongs to, and how a drawn case is reshaped into it
// (tokens, heads, head_dim, positions). Kept apart from the generator of
// the tiny cases every other consumer (RapidCheck, the fuzzer) draws.
#ifndef ROPECHECK_CORE_CASES_SIZE_CLASSES_H_
#define ROPECHECK_CORE_CASES_SIZE_CLASSES_H_

#include <cstdint>
#include <span>

#include "core/cases/cases.h"

namespace ropecheck {

// Reshapes a drawn case into class `cls`; the scheme keeps its kind (its
// per-pair arrays are redrawn when the rotary dim changes). kTiny leaves it.
void reshape_to_class(Choices& rng, Suite suite, SizeClass cls, Case* c);

// The edge class's positions (kEdges) that fit int32, and those past it
// (drawn only where a case's ids are int64). fit_case redraws an int64 id
// past int32 among the first when it fits a case to int32 positions.
std::span<const std::int64_t> int32_edge_positions();
std::span<const std::int64_t> int64_edge_positions();

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_SIZE_CLASSES_H_
