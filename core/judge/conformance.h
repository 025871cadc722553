// SPDX-License-Identifier: MIT
// The conformance verdict, in the one form the gate's ConformsToReference
// property and `golden verify` both give it: on one case (skipped outside
// what the kernel declares, else the judge on two calls), and on a run (the
// verdict floor: a kernel judged on too few cases has no verdict to pass).
#ifndef ROPECHECK_CORE_JUDGE_CONFORMANCE_H_
#define ROPECHECK_CORE_JUDGE_CONFORMANCE_H_

#include <functional>
#include <string>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/judge.h"
#include "core/judge/reference_result.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Skipped ("outside capabilities: <why>") when the case lies outside what
// the kernel declares; else the judge's verdict on the first of two calls
// (call_kernel_twice: any difference between them is a misbehaviour), or
// on the run `run` gives (such a pair of calls the caller holds already).
// `budgets`, when given, is asked once the case is to be judged for the
// budget table the caller holds (judge()).
CaseOutcome judge_conformance(const ropecheck_impl_t& impl, const JudgedCase& j,
                              const std::function<const BudgetTable*()>& budgets = nullptr,
                              const std::function<const KernelRun&()>& run = nullptr);

// What a run judged of one kernel (for the gate: of one property).
struct JudgedCount {
  int judged = 0;    // passed or failed
  int declined = 0;  // skipped as outside its declared capabilities, or declined by it (ABI 1.7)
  int cases = 0;     // every case the run gave it
  // The commonest reasons of the skips, "" when not counted: appended as
  // "; skipped for: ..." to the floor's message.
  std::string skipped_for;
};
// The verdict floor (--min-judged): "" when the kernel was judged on at
// least min_judged cases, or when no case could have judged it (none judged
// and none declined: a property the run's cases give nothing to check);
// else why it has no verdict to pass. A kernel cannot decline its way to a
// pass.
std::string verdict_floor_failure(const JudgedCount& n, int min_judged);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_JUDGE_CONFORMANCE_H_
