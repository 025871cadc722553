// The exact result of a case on given inputs, element by element, with
// everything the error model needs to budget each element (ElementTerms).
// compute_reference evaluates it with the MPFR reference; the golden
// verifier rebuilds the same structure from an export's files; both go
// through assemble_reference, so the per-element layout exists once.
#ifndef ROPECHECK_CORE_REFERENCE_RESULT_H_
#define ROPECHECK_CORE_REFERENCE_RESULT_H_

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/buffers.h"
#include "core/cases.h"
#include "core/error_model.h"

namespace ropecheck {

// One rotated element; the two elements of a pair are adjacent (first, second).
struct ReferenceElement {
  ElementTerms terms;
  double rounded = 0;  // exact value correctly rounded to the storage dtype
  std::int64_t offset = 0;
  std::int64_t token = 0;
  int head = 0, channel = 0;
};

struct ReferenceResult {
  double attention_factor = 1;
  std::vector<double> inv_freq;  // exact w_i rounded to double, rotary_dim/2
  // Per token and pair (token-major): exact p w_i, cos(p w_i), sin(p w_i)
  // rounded to double, without the attention factor.
  std::vector<double> angle, cos, sin;
  std::array<std::vector<ReferenceElement>, 2> elements;  // q, k
};

// The exact values of one pair: outputs (to double and to the dtype).
struct ExactPair {
  double value[2] = {0, 0};
  double rounded[2] = {0, 0};
};

// Fills result.elements for every rotated pair of the case from `pair_values`
// (tensor, token, head, pair, channel of first, channel of second) -> its
// exact outputs; inputs, cos/sin and angles come from `in` and the result's
// per-token tables, which the caller has filled.
void assemble_reference(
    const Case& c, const QkBuffers& in,
    const std::function<ExactPair(int w, std::int64_t token, int head, int pair, int a, int b)>& pair_values,
    ReferenceResult* result);

// The MPFR reference (reference/) for a case's inputs.
ReferenceResult compute_reference(const Case& c, const QkBuffers& in);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_REFERENCE_RESULT_H_
