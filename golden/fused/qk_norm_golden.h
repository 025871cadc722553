// SPDX-License-Identifier: MIT
// A golden case's qk-norm (ABI 1.5: the per-head RMSNorm of q and k before
// the rotation, as Qwen3, Gemma 3 and OLMo 2 apply it and vLLM and
// TensorRT-LLM fuse it) in an export (manifest schema 5): the norm the case
// is called with (weight form, eps, a weight per channel for q and for k),
// the arithmetic the exported budgets assume (where the normalised value is
// rounded, the reciprocal square root's ulps), and what follows: each
// element's exact value (the exact norm, then the exact rotation) and its
// budget per exported policy, from core/judge/qk_norm_judge.h, the gate's
// own NormalisesEachHeadThenRotates judgement.
//
// manifest.json, per qk-norm case:
//   "qkNorm": {"weightForm": "one_plus_w", "eps": 1e-06, "epsHex": "0x1.0c6f7ap-20",
//              "intermediate": "round_after_weight", "rsqrtMaxUlp": 1}
#ifndef ROPECHECK_GOLDEN_FUSED_QK_NORM_GOLDEN_H_
#define ROPECHECK_GOLDEN_FUSED_QK_NORM_GOLDEN_H_

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/qk_norm_case.h"
#include "golden/formats/tensor_file.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::golden {

struct GoldenNorm {
  // Form, eps and weights (read from a manifest: without weights, which
  // the files hold); the per-head input scales are already in the case's q
  // and k.
  QkNormCase norm;
  // The declared arithmetic the exported budgets assume (E10).
  ropecheck_norm_intermediate_t intermediate = ROPECHECK_NORM_KEEP_F32;
  double rsqrt_max_ulp = 1;

  // What a kernel with exactly this norm declares.
  ropecheck_norm_policy_t policy() const;
};

// The norm of golden case c: qk_norm_case's draws for the one weight form
// (weights, eps, per-head input scales), with the arithmetic the budgets
// assume.
GoldenNorm make_golden_norm(const Case& c, ropecheck_norm_weight_form_t form,
                            ropecheck_norm_intermediate_t intermediate);

// The expected tensors of a qk-norm case in place of the plain rotation's:
// per tensor (q, k) the exact value rounded to the case dtype (certified:
// std::logic_error naming `label` when the reference's double lies within
// its own error of a rounding boundary), the exact value to double, and per
// exported policy (budget_policies() order) each element's budget.
// `in`: the inputs as stored (the norm's scaled ones).
struct NormedExpected {
  std::array<ByteBuffer, 2> rounded;
  std::array<std::vector<double>, 2> exact;
  std::vector<std::array<std::vector<double>, 2>> budgets;
};
NormedExpected normed_expected(const Case& c, const QkBuffers& in, const GoldenNorm& n, double attention_factor,
                               const std::string& label);

// The inputs the norm adds: q_norm_weight, k_norm_weight ([head_dim], case dtype).
std::vector<Tensor> norm_tensors(const Case& c, const GoldenNorm& n);
// The flags (fused_input_flag_catalog) the norm implies.
std::vector<std::string> norm_flags(const GoldenNorm& n);

// The manifest's "qkNorm", and back (FormatError naming `file` and the
// JSON path); the weights come from the files (read_golden_norm: each
// [head_dim] in the case dtype, a value of it; FormatError naming the tensor).
nlohmann::ordered_json norm_to_json(const GoldenNorm& n);
GoldenNorm parse_qk_norm(const nlohmann::json& j, const std::string& file, const std::string& path);
GoldenNorm read_golden_norm(const GoldenNorm& declared, const Case& c, const std::vector<Tensor>& ts,
                            const std::string& where);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_FUSED_QK_NORM_GOLDEN_H_
