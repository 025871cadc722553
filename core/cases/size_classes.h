// The size classes of the suites (core/cases/cases.h, SizeClass): which class case
// `index` of a suite belongs to, and how a drawn case is reshaped into it
// (tokens, heads, head_dim, positions). Kept apart from the generator of
// the tiny cases every other consumer (RapidCheck, the fuzzer) draws.
#ifndef ROPECHECK_CORE_CASES_SIZE_CLASSES_H_
#define ROPECHECK_CORE_CASES_SIZE_CLASSES_H_

#include "core/cases/cases.h"

namespace ropecheck {

// Reshapes a drawn case into class `cls`; the scheme keeps its kind (its
// per-pair arrays are redrawn when the rotary dim changes). kTiny leaves it.
void reshape_to_class(Choices& rng, Suite suite, SizeClass cls, Case* c);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_SIZE_CLASSES_H_
