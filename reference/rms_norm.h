// SPDX-License-Identifier: MIT
// The exact RMSNorm of one head, the qk-norm that Qwen3, Gemma 3 and OLMo 2
// apply to q and k per head before the rotation:
//   n_i = x_i * w'_i / sqrt(mean_j(x_j^2) + eps),  j over the head's channels,
// with w' = w (Qwen3RMSNorm, OLMo2's per-head q/k norm) or w' = 1 + w
// (Gemma3RMSNorm: `output * (1.0 + self.weight.float())`), in transformers'
// modeling_qwen3.py / modeling_gemma3.py. Computed in the reference's number
// type R from the stored values (doubles, exact), eps and the weights as the
// kernel is given them. The per-head norm over all head_dim channels, the
// rotary ones and the pass-through alike (as the models normalise before
// splitting off the rotary part).
#ifndef ROPECHECK_REFERENCE_RMS_NORM_H_
#define ROPECHECK_REFERENCE_RMS_NORM_H_

#include <vector>

namespace ropecheck::ref {

enum class NormWeightForm { kW, kOnePlusW };

template <class R>
std::vector<R> rms_norm_exact(const double* x, int n, const double* w, NormWeightForm form, double eps) {
  R sum = 0;
  for (int j = 0; j < n; ++j) sum += R(x[j]) * R(x[j]);
  const R inv = 1 / sqrt(sum / n + R(eps));
  std::vector<R> out(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    const R wj = form == NormWeightForm::kOnePlusW ? R(1) + R(w[j]) : R(w[j]);
    out[static_cast<std::size_t>(j)] = R(x[j]) * wj * inv;
  }
  return out;
}

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_RMS_NORM_H_
