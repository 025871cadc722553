// SPDX-License-Identifier: MIT
// E10, the qk-norm a fused kernel applies per head before the rotation
// (reference/rms_norm.h has the exact value): a bound on |kernel's
// normalised channel - exact|, per channel of one head, from the arithmetic
// the kernel declares. The bound is the error of the rotation's input; the
// rotation carries it to the output at most m times (it is an isometry
// scaled by the attention factor), docs/ERROR_MODEL.md "E10".
#ifndef ROPECHECK_CORE_ERROR_MODEL_QK_NORM_BUDGET_H_
#define ROPECHECK_CORE_ERROR_MODEL_QK_NORM_BUDGET_H_

#include <span>
#include <vector>

#include "reference/rms_norm.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Where the normalised value is rounded to the activation dtype S.
enum class NormIntermediate {
  // Every step in fp32, the result fed to the rotation in fp32 (vLLM's and
  // TensorRT-LLM's fused_qk_norm_rope: `x *= rms_rcp * weight` kept in fp32).
  kKeepF32,
  // x * rsqrt in fp32, rounded to S, then times the weight in S
  // (transformers' Qwen3RMSNorm: `self.weight * hidden_states.to(input_dtype)`).
  kRoundBeforeWeight,
  // Every step in fp32, the result rounded to S before the rotation
  // (transformers' Gemma3RMSNorm: `output.type_as(x)`).
  kRoundAfterWeight,
};

struct NormPolicy {
  ref::NormWeightForm form = ref::NormWeightForm::kW;
  NormIntermediate intermediate = NormIntermediate::kKeepF32;
  // The fp32 reciprocal square root, in ulps of fp32 at its result: 1 for
  // 1.0f / sqrtf (two correct roundings, 1.5 u at most), 2 for CUDA's
  // rsqrtf (CUDA C Programming Guide, mathematical functions: 2 ulps).
  double rsqrt_max_ulp = 1;
};

// x: the head's stored channels (exact doubles); w: the weights as given
// (values of the weight dtype), one per channel of x; eps as given. Sums of squares in
// fp32 in any order (sequential, pairwise, a warp's butterfly: Higham,
// "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 3.1,
// bounds all of them by gamma_n).
std::vector<double> norm_error_bounds(std::span<const double> x, std::span<const double> w, double eps,
                                      const NormPolicy& policy, ropecheck_dtype_t storage);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ERROR_MODEL_QK_NORM_BUDGET_H_
