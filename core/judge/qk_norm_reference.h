// SPDX-License-Identifier: MIT
// The exact result of a rotation fused with a qk-norm (ABI 1.5): every head
// of the inputs normalised exactly (reference/rms_norm.h, 134-bit MPFR) and
// rounded to doubles, then rotated exactly (compute_reference, on those
// doubles as the inputs of the case in fp64), and for a kernel's declared
// norm policy the bound of E10 on each normalised element
// (core/error_model/qk_norm_budget.h). The one inexact step, the normalised
// values rounded to doubles (|n_d - n| <= 2^-53 |n|), is charged with E10's
// bound as the rotation's input error (ElementTerms::input_error_x/y).
#ifndef ROPECHECK_CORE_JUDGE_QK_NORM_REFERENCE_H_
#define ROPECHECK_CORE_JUDGE_QK_NORM_REFERENCE_H_

#include <array>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/qk_norm_case.h"
#include "core/judge/reference_result.h"

namespace ropecheck {

struct NormedReference {
  Case c64;          // the case in fp64: the normalised values' storage (same element offsets)
  QkBuffers normed;  // every channel's normalised value, rounded to double
  ReferenceResult rotated;  // the exact rotation of `normed`
};

// in: the inputs the kernel is called with (inputs_for_norm).
NormedReference normed_reference(const Case& c, const QkBuffers& in, const QkNormCase& n);

// Per tensor, indexed by element offset (core/cases/buffers.h, geometry):
// E10's bound on |kernel's normalised value - exact| for a kernel declaring
// `policy`, plus the 2^-53 |n| of the reference's own rounding; 0 outside
// the views.
std::array<std::vector<double>, 2> norm_input_errors(const Case& c, const QkBuffers& in, const QkNormCase& n,
                                                     const NormedReference& ref, const NormPolicy& policy);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_JUDGE_QK_NORM_REFERENCE_H_
