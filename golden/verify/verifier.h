// SPDX-License-Identifier: MIT
// `ropecheck golden verify`: runs implementations through the C ABI on every
// case of an export they support, and judges them as the gate's conformance
// property does, verdict floor included (core/judge/conformance.h), fed only
// from the files: the expected values, exact cos/sin and
// angles are read back, so what is checked is the vectors a user downloads.
#ifndef ROPECHECK_GOLDEN_VERIFY_VERIFIER_H_
#define ROPECHECK_GOLDEN_VERIFY_VERIFIER_H_

#include <optional>
#include <span>
#include <ostream>
#include <string>
#include <vector>

#include "core/judge/judge.h"
#include "golden/manifest/manifest.h"
#include "golden/outputs/outputs.h"
#include "core/kernel/kernel_call.h"
#include "core/judge/reference_result.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::golden {

// A case of an export as the gate sees it: buffers and the reference result.
struct LoadedCase {
  Case c;
  QkBuffers in;
  ReferenceResult ref;
  int outputs = 0;  // invalid and acceptable outputs checked (golden/outputs/outputs.h)
  std::optional<GoldenKv> kv;  // a fused case's KV-cache write, read from its files
  std::optional<GoldenNorm> norm;  // a qk-norm case's norm, read from its manifest entry and files
};
// Throws FormatError when a tensor is missing or its dtype or shape
// disagrees with the manifest entry, when a tensor that follows from the
// inputs is not the reference's, or when an output other than the exact
// one is not what the manifest says (check_case_outputs); with `mutants`
// (the bug catalogue), also when an output is not, bit for bit, what its
// mutant writes on the case (an edited invalid output whose recorded
// measure still holds, issue #49: infinity stays infinity).
LoadedCase load_case(const std::string& dir, const Manifest& m, const CaseEntry& e,
                     std::span<const MutantSource> mutants = {});

struct CaseVerdict {
  int id = 0;
  std::string name;
  std::vector<std::string> flags;
  CaseOutcome outcome;
};
struct ImplVerdicts {
  std::string impl;
  std::vector<CaseVerdict> cases;
  int count(Outcome o) const;
};

struct VerifyOptions {
  std::string expect_sums_sha256;  // pins SHA256SUMS (load_manifest)
  int min_judged = 1;              // an implementation judged on fewer cases fails
  // The bug catalogue: every output of the export is recomputed by its
  // mutant (load_case). Empty: outputs are checked by their measures alone.
  std::vector<MutantSource> mutants;
};

struct VerifyReport {
  std::vector<ImplVerdicts> impls;
  int min_judged = 1;
  int cases = 0;                // in the export
  // Outputs other than the exact one, each checked as load_case does.
  int invalid_outputs = 0, acceptable_outputs = 0;
  int fused_cases = 0;          // cases with a KV-cache write (schema 4)
  int qk_norm_cases = 0, caller_cache_cases = 0;  // schema 5
  std::string interrupted;      // "SIGINT": stopped early, no verdict
  // Why an implementation has no verdict to pass: judged on too few cases.
  std::string under_floor(const ImplVerdicts& v) const;
  bool passed() const;
};

// A kernel granting KV_CACHE_WRITE is called on a fused case with the
// case's write (skipped when it does not declare that write) and judged on
// q, k and both caches (core/judge/kv_cache_judge.h, judge_with_kv_write);
// any other kernel is judged on the case's q and k, a rotation like any.
// On a qk-norm case a kernel granting QK_NORM with the case's weight form is
// called with the case's norm and judged as NormalisesEachHeadThenRotates
// judges (its declared norm policy); any other kernel is skipped. On a case
// reading the caller's cos/sin cache, a kernel granting
// CALLER_COS_SIN_CACHE reads the case's cache (its dtype among those it
// declares, else skipped), any other is judged on q and k.
// Stops between cases when SIGINT or SIGTERM arrives (core/isolation/interrupt.h).
VerifyReport verify_golden(const std::string& dir, const std::vector<const ropecheck_impl_t*>& impls,
                           const VerifyOptions& o = {});
// Per implementation: the failing cases (with the first violation), then a
// table of passed / failed / skipped per flag; the verdict last.
void print_verify_report(const VerifyReport& r, std::ostream& os);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_VERIFY_VERIFIER_H_
