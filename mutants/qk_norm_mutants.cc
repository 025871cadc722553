// SPDX-License-Identifier: MIT
// The qk-norm rows of the catalogue: the fused norm of
// impls/kernel_support/qk_norm_fused.h with one thing done wrong.
#include "mutants/qk_norm_mutants.h"

#include <deque>
#include <mutex>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/qk_norm_fused.h"
#include "ropecheck/qk_norm.h"

namespace ropecheck::mutant {
namespace {

struct NormKernel {
  Bug bug;
  const ropecheck_impl_t* rotation;
  ropecheck_caps_t caps;
};

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const NormKernel& k = *static_cast<const NormKernel*>(ctx);
  if (auto s = impl::check_apply(k.caps, p, err, n)) return s;
  const ropecheck_qk_norm_t* qn = qk_norm_of(*p);
  if (qn == nullptr) return k.rotation->apply(k.rotation->ctx, p, err, n);
  ropecheck_qk_norm_t norm = *qn;
  ropecheck_apply_params_t call = *p;
  impl::FusedNormOptions o;
  o.arithmetic.form = qn->weight_form;
  o.arithmetic.intermediate = ROPECHECK_NORM_KEEP_F32;
  switch (k.bug) {
    case Bug::qk_norm_after_rotation: o.rotate_first = true; break;
    case Bug::qk_norm_weight_form_swapped:
      o.arithmetic.form = qn->weight_form == ROPECHECK_NORM_WEIGHT_W ? ROPECHECK_NORM_WEIGHT_ONE_PLUS_W
                                                                     : ROPECHECK_NORM_WEIGHT_W;
      break;
    case Bug::qk_norm_eps_dropped: o.arithmetic.add_eps = false; break;
    case Bug::qk_norm_statistic_over_rotary: o.arithmetic.stat_channels = p->rotary_dim; break;
    case Bug::qk_norm_intermediate_in_bf16:
      o.arithmetic.intermediate = ROPECHECK_NORM_ROUND_AFTER_WEIGHT;
      o.rounding_dtype = ROPECHECK_DTYPE_BF16;
      break;
    case Bug::qk_norm_layout_hard_coded: call.layout = ROPECHECK_LAYOUT_HALF_SPLIT; break;
    case Bug::qk_norm_q_weight_for_k:
      if (norm.k_weight) norm.k_weight = norm.q_weight;
      break;
    default: break;
  }
  return impl::norm_then_rotate(*k.rotation, call, norm, o, err, n);
}

}  // namespace

bool is_qk_norm_bug(Bug bug) {
  switch (bug) {
    case Bug::qk_norm_after_rotation:
    case Bug::qk_norm_weight_form_swapped:
    case Bug::qk_norm_eps_dropped:
    case Bug::qk_norm_statistic_over_rotary:
    case Bug::qk_norm_intermediate_in_bf16:
    case Bug::qk_norm_layout_hard_coded:
    case Bug::qk_norm_q_weight_for_k: return true;
    default: return false;
  }
}

ropecheck_impl_t qk_norm_mutant_table(const BugInfo& info, const ropecheck_impl_t* rotation) {
  static std::deque<NormKernel> kernels;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  const ropecheck_caps_t caps = impl::standard_caps(impl::kBothLayouts, ROPECHECK_CAP_QK_NORM);
  NormKernel& k = kernels.emplace_back(NormKernel{info.bug, rotation, caps});
  ropecheck_impl_t t = impl::kernel_table(info.name, info.description, caps, policy_of(*rotation), apply, nullptr,
                                          nullptr, &k);
  t.norm_policy = ropecheck_norm_policy_t{sizeof(ropecheck_norm_policy_t),
                                          (1u << ROPECHECK_NORM_WEIGHT_FORM_COUNT) - 1u, ROPECHECK_NORM_KEEP_F32, 0u,
                                          1.0};
  return t;
}

}  // namespace ropecheck::mutant
