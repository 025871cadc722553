// SPDX-License-Identifier: MIT
// E1 and the angle half of E2 (docs/ERROR_MODEL.md): how far a kernel's
// frequency and angle may be from the exact p w_i, given the way its policy
// says it forms them (a per-pair formula then an fp32 or fp64 product, or
// ggml's running fp32 product, for every scheme but explicit frequencies),
// and the YaRN configurations no kernel can be held to.
#ifndef ROPECHECK_CORE_ERROR_MODEL_ANGLE_ERROR_H_
#define ROPECHECK_CORE_ERROR_MODEL_ANGLE_ERROR_H_

#include <cstdint>
#include <vector>

#include "reference/freq_spec.h"
#include "ropecheck/policy.h"

namespace ropecheck {

class AngleError {
 public:
  AngleError(const Policy& policy, const ref::FreqSpec& spec, int rotary_dim);

  // E1: bound on |w~ / w - 1| of the kernel's frequency of `pair` (per-pair
  // formula modes).
  double freq_rel_error(int pair) const { return freq_rel_[static_cast<std::size_t>(pair)]; }
  // Bound A on |a~ - a| for the exact angle |a| = abs_angle of `pair` at
  // `position` (without the phase error of a fast sin/cos).
  double bound(double abs_angle, std::int64_t position, int pair) const;

 private:
  // F32_RUNNING_PRODUCT: the per-step log error of theta_scale, and per pair
  // the log error of the scheme's steps after the loop and YaRN's mixing term.
  void init_running_product(const ref::FreqSpec& spec, int rotary_dim, double k_pow);

  Policy policy_;
  std::vector<double> freq_rel_;
  std::vector<char> unit_freq_;  // w~ is exactly 1 (pair 0 of a power formula)
  double rp_l1_ = 0;
  std::vector<double> rp_extra_, rp_mix_;
};

// True when a YaRN correction bound with truncate lies so close to an
// integer that floor/ceil of any finite-precision evaluation may land on the
// other side: the frequencies are discontinuous in the parameters there, so
// no kernel can be held to them (docs, "Ill-conditioned configs").
bool yarn_near_cliff(const ref::FreqSpec& spec, int rotary_dim);

// Unit roundoff 2^-p of a dtype (half an ulp at 1).
double unit_roundoff(std::uint32_t dtype);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ERROR_MODEL_ANGLE_ERROR_H_
