// SPDX-License-Identifier: MIT
// The catalogue rows whose clean kernel is a policy kernel
// (impls/policy/): its arithmetic with one more rounding than the policy it
// declares (or the policy claiming less error than the arithmetic makes).
#ifndef ROPECHECK_MUTANTS_POLICY_MUTANTS_H_
#define ROPECHECK_MUTANTS_POLICY_MUTANTS_H_

#include "impls/policy/policy_kernel.h"
#include "mutants/mutant_list.h"

namespace ropecheck::mutant {

// The kernel row of `bug`, or nullptr when its clean kernel is
// mutant_kernel.cc's. Rows live for the process.
const impl::PolicyKernel* policy_mutant(Bug bug);

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_POLICY_MUTANTS_H_
