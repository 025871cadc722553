// SPDX-License-Identifier: MIT
// What a golden case file holds that follows from the case's inputs: the
// inputs, the exact expected values, the per-policy budgets and the fused
// parts' tensors. The exporter writes it (golden/export/exporter.h) and `golden
// verify` recomputes it to compare with what it reads (golden/verify/verifier.h).
#ifndef ROPECHECK_GOLDEN_EXPORT_CASE_TENSORS_H_
#define ROPECHECK_GOLDEN_EXPORT_CASE_TENSORS_H_

#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/reference_result.h"
#include "golden/fused/fused_parts.h"
#include "golden/suites/suites.h"
#include "golden/formats/tensor_file.h"

namespace ropecheck::golden {

struct CaseTensors {
  std::vector<Tensor> tensors;  // in file order
  std::vector<std::string> flags;
  double attention_factor = 1;
};
// Inputs, exact outputs and budgets of a case from its inputs: what every
// tensor of a case file that follows from its inputs and its attention
// factor must hold, so that `golden verify` recomputes what it reads
// (golden/verify/verifier.h); the export appends the mutants' outputs
// (golden/outputs/outputs.h). `label` names the case in an error. The flags are
// those the inputs imply (derive_flags), without the suite's own. parts.kv,
// for a fused case: its KV-cache write, whose tensors follow
// (golden/fused/kv_golden.h, kv_case_tensors). parts.norm, for a qk-norm case: its
// expected values and budgets are the normalised values rotated
// (golden/fused/qk_norm_golden.h), its weights follow the budgets. A case
// reading the caller's cos/sin cache (c.caller_cache_dtype) adds the cache
// (golden/fused/cos_sin_cache_golden.h) and its budgets are a reader's of it.
CaseTensors derive_case_tensors(const Case& c, const QkBuffers& in, const std::string& label, FusedParts parts = {});
CaseTensors derive_case_tensors(const Case& c, const QkBuffers& in, const ReferenceResult& ref,
                                const std::string& label, FusedParts parts = {});

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_EXPORT_CASE_TENSORS_H_
