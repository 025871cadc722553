// SPDX-License-Identifier: MIT
// The verdict on a rotation fused with a qk-norm (ABI 1.5), in the one form
// the gate's Rope/NormalisesEachHeadThenRotates and the golden vectors
// (`golden export` / `golden verify` on a qk-norm case) both use: every
// element's exact value (the exact norm, then the exact rotation:
// qk_norm_reference.h) and its budget for a kernel with a rotation of error
// model `em` and a norm of policy `np` (E10 carried through the rotation on
// the rotated channels; E10 and the store on the pass-through ones), and a
// run's q and k judged against them, nothing outside the views written.
#ifndef ROPECHECK_CORE_JUDGE_QK_NORM_JUDGE_H_
#define ROPECHECK_CORE_JUDGE_QK_NORM_JUDGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/qk_norm_case.h"
#include "core/error_model/error_model.h"
#include "core/judge/judge.h"
#include "core/judge/qk_norm_reference.h"
#include "core/kernel/kernel_call.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// One element of q or k after the norm and the rotation.
struct NormedElement {
  int w = 0;  // 0: q, 1: k
  std::int64_t token = 0;
  int head = 0, channel = 0;
  std::int64_t offset = 0;  // element offset (core/cases/buffers.h, geometry)
  bool rotated = true;      // a rotary channel, else a pass-through one
  double value = 0;         // the exact value, to double
  double budget = 0;        // allowed |kernel's - value|
  ElementTerms terms;       // a rotated element's (its budget's breakdown: em.explain)
  double norm_error = 0, store = 0;  // a pass-through element's budget: E10 + the store to S
};

// What a kernel's fused rotation and norm are budgeted by: the error model
// of its rotation and the norm policy it declares.
struct NormedBudget {
  const ErrorModel& rotation;
  const NormPolicy& norm;
};

// Every element of q and k in the case's views, rotated ones first (the
// reference's order), then the pass-through channels per token and head.
// `in`: the inputs the kernel is called with (inputs_for_norm).
std::vector<NormedElement> normed_elements(const Case& c, const QkBuffers& in, const QkNormCase& n,
                                           const NormedReference& ref, const NormedBudget& budget);

struct NormVerdict {
  std::string outside;   // a write outside the q and k views, named; "" when none
  std::string first;     // the first element over its budget, named with its budget's terms; "" when none
  double worst = 0;      // the largest |got - exact| / budget (infinity for a non-finite one)
};
// A run of `impl` (called with norm n on inputs `in`) judged under what it
// declares: its rotation's error model and its norm policy for n's form.
NormVerdict judge_qk_norm(const ropecheck_impl_t& impl, const Case& c, const QkBuffers& in, const QkNormCase& n,
                          const KernelRun& run);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_JUDGE_QK_NORM_JUDGE_H_
