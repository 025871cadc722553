// SPDX-License-Identifier: MIT
// One kernel judged on one fuzzed case in the form the gate judges it,
// with the gate's own judges and nothing of their own:
//   - a kernel fused with a qk-norm (ABI 1.5), when the input asks for the
//     norm: called with core/cases/qk_norm_case's norm on its inputs
//     (inputs_for_norm), judged by core/judge/qk_norm_judge (the gate's
//     Rope/NormalisesEachHeadThenRotates);
//   - every other call: the rotation judged by core/judge/judge and, for a
//     kernel granting the KV-cache write (ABI 1.4; MLA's caches, 1.5),
//     the write call_kernel makes with kv_write_case's spec judged by
//     core/judge/kv_cache_judge (judge_with_kv_write: the codes of every
//     written element, the rest of both caches unchanged). A kernel reading
//     the caller's cos/sin cache (ABI 1.6) gets the one call_kernel builds,
//     in the dtype cos_sin_cache_case draws, and is budgeted for it.
//     The KV-cache write's calls get finite inputs (the generator's
//     values), as the gate gives them: its judge is defined on those.
// The inputs and exact result of a case are made once and shared by every
// kernel judged on the same case (PreparedCases).
#ifndef ROPECHECK_FUZZ_DIFFERENTIAL_JUDGE_CALL_H_
#define ROPECHECK_FUZZ_DIFFERENTIAL_JUDGE_CALL_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/reference_result.h"
#include "fuzz/differential/fuzz_case.h"
#include "fuzz/differential/tally.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::fuzz {

// A case's inputs, and its exact result once asked for.
struct PreparedCase {
  Case c;
  bool raw = false;  // inputs with the input's raw bits
  bool wrote_raw = false;
  QkBuffers in;
  std::optional<ReferenceResult> ref;
};

// The cases of one execution. `keyed`: several kernels, whose fitted cases
// may differ (told apart by describe()); with one kernel every case asked
// for is the same case.
class PreparedCases {
 public:
  PreparedCases(const FuzzInput& input, bool keyed) : input_(input), keyed_(keyed) {}
  PreparedCase& get(const Case& c, bool raw);
  const ReferenceResult& reference(PreparedCase& p);

 private:
  const FuzzInput& input_;
  bool keyed_;
  std::vector<std::pair<std::string, std::unique_ptr<PreparedCase>>> cases_;
};

struct CallVerdict {
  CallForm form;
  std::string detail;   // the fused part, described ("" for the rotation alone)
  std::string failure;  // "" when the kernel passed
  std::string declined; // why the kernel declined the case (ABI 1.7, MAY_DECLINE): a skip, not judged
};

CallVerdict judge_call(const ropecheck_impl_t& impl, const Case& c, const FuzzInput& input, PreparedCases& cases);

}  // namespace ropecheck::fuzz

#endif  // ROPECHECK_FUZZ_DIFFERENTIAL_JUDGE_CALL_H_
