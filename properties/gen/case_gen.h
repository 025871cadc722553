// RapidCheck generator of conformance cases. Structural fields (shape,
// layout, dtype, heads, tokens, positions, strides) are drawn by RapidCheck so
// a failure shrinks toward a small head, few tokens, small positions; the
// scheme's parameters come from the grid's own drawer (valid by
// construction, cliffs avoided) under a RapidCheck-drawn seed.
#ifndef ROPECHECK_PROPERTIES_GEN_CASE_GEN_H_
#define ROPECHECK_PROPERTIES_GEN_CASE_GEN_H_

#include <ostream>

#include <rapidcheck.h>

#include "ropecheck/cases.h"

namespace ropecheck {

struct CaseGenOptions {
  int max_head_dim = 512;
  int max_log2_position = 20;
};

rc::Gen<Case> gen_case(CaseGenOptions options = {});

// How RapidCheck prints a counterexample.
void showValue(const Case& c, std::ostream& os);

}  // namespace ropecheck

#endif  // ROPECHECK_PROPERTIES_GEN_CASE_GEN_H_
