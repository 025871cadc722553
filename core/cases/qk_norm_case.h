// SPDX-License-Identifier: MIT
// The qk-norm (ABI 1.5, ropecheck_qk_norm_t) a kernel granting QK_NORM is
// called with on a case, in the properties that ask for one: the weight
// form among those it declares, eps, a weight per channel for q and for k,
// and a scale per head applied to the case's inputs, so some heads hold
// values whose mean square is of eps's order (where a kernel that drops eps,
// or adds it in the wrong place, is off) and others values near 1. Derived
// from the case (its suite, seed and index) on a stream of its own: the
// plain case stays what it is.
#ifndef ROPECHECK_CORE_CASES_QK_NORM_CASE_H_
#define ROPECHECK_CORE_CASES_QK_NORM_CASE_H_

#include <array>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/error_model/qk_norm_budget.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

struct QkNormCase {
  ropecheck_norm_weight_form_t form = ROPECHECK_NORM_WEIGHT_W;
  float eps = 1e-6f;
  // head_dim weights each, values of the case's storage dtype; k's empty
  // for a case without k.
  std::array<std::vector<double>, 2> weight;
  // Per tensor and head: the input scale 2^-k applied to the case's values
  // (inputs_for_norm).
  std::array<std::vector<int>, 2> head_scale_log2;
  std::string describe() const;
};

// The norm for case c and a kernel declaring `policy` (its weight forms).
QkNormCase qk_norm_case(const Case& c, const ropecheck_norm_policy_t& policy);

// The case's inputs with every head scaled as the norm case says (each
// value rounded to the storage dtype), the q and k the norm is called on.
QkBuffers inputs_for_norm(const Case& c, const QkBuffers& in, const QkNormCase& n);

// The weights as the ABI hands them: head_dim values in the storage dtype.
ByteBuffer weight_bytes(const Case& c, const QkNormCase& n, int w);

// E10's policy (core/error_model/qk_norm_budget.h) of a kernel declaring
// `p`, for the weight form the call uses.
NormPolicy norm_policy_of(const ropecheck_norm_policy_t& p, ropecheck_norm_weight_form_t form);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_QK_NORM_CASE_H_
