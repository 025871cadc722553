// SPDX-License-Identifier: MIT
// The definitions of mutants/policy_mutants.h.
#include "mutants/policy_mutants.h"

#include <utility>
#include <vector>

namespace ropecheck::mutant {
namespace {

// A copy of a correct policy kernel's row under the bug's name.
impl::PolicyKernel from(const char* base, Bug bug) {
  impl::PolicyKernel k = *impl::find_policy_kernel(base);
  k.name = bug_info(bug).name;
  k.description = bug_info(bug).description;
  return k;
}

std::vector<std::pair<Bug, impl::PolicyKernel>> rows() {
  std::vector<std::pair<Bug, impl::PolicyKernel>> v;
  auto add = [&](Bug b, const char* base, auto change) {
    impl::PolicyKernel k = from(base, b);
    change(k);
    v.emplace_back(b, k);
  };
  // HF eager's three bf16/fp16 roundings, budgeted as fp32 arithmetic.
  add(Bug::hf_eager_math_declared_f32, "policy_hf_eager",
      [](impl::PolicyKernel& k) { k.policy.base.math_dtype = ROPECHECK_DTYPE_F32; });
  // The cast of cos/sin to the activation dtype, undeclared.
  add(Bug::hf_eager_cos_sin_cast_undeclared, "policy_hf_eager",
      [](impl::PolicyKernel& k) { k.policy.base.cache_dtype = ROPECHECK_DTYPE_F32; });
  add(Bug::fma_storage_product_rounded, "policy_fma_storage", [](impl::PolicyKernel& k) { k.form.fma = false; });
  add(Bug::cuda_powf_cos_sin_cast_undeclared, "policy_cuda_powf",
      [](impl::PolicyKernel& k) { k.form.cos_sin_in_storage = true; });
  // The i roundings and i-fold pow error of the running product, budgeted
  // as one product per pair.
  add(Bug::ggml_declared_per_pair_product, "policy_ggml_cpu",
      [](impl::PolicyKernel& k) { k.policy.base.angle_mode = ROPECHECK_ANGLE_F32_PRODUCT; });
  add(Bug::ggml_long_factors_fixed, "policy_ggml_cpu",
      [](impl::PolicyKernel& k) { k.form.longrope_long_factors = true; });
  add(Bug::ggml_yarn_ramp_channel_index, "policy_ggml_cpu",
      [](impl::PolicyKernel& k) { k.form.yarn_ramp_channel_index = true; });
  add(Bug::ggml_running_product_bf16, "policy_ggml_cpu",
      [](impl::PolicyKernel& k) { k.form.running_product_bf16 = true; });
  // __sincosf's [-pi, pi] bound claimed for every argument (no range, no growth).
  add(Bug::fast_sincos_past_range, "policy_fast_sincos", [](impl::PolicyKernel& k) {
    k.policy.ext.sincos_abs_error_range = 0;
    k.policy.ext.sincos_phase_error_slope = 0;
  });
  add(Bug::fp32_positions_undeclared, "policy_f64_fp32_positions",
      [](impl::PolicyKernel& k) { k.policy.ext.positions_f32 = 0; });
  // 1.7's parts, each declared away: flushed subnormals declared kept,
  // exp-of-log frequencies declared as powers, frequencies formed in fp32 by
  // the scheme's formula declared as a table of exact values.
  add(Bug::flushed_subnormals_undeclared, "policy_flush_subnormals",
      [](impl::PolicyKernel& k) { k.policy.ext2.subnormals = ROPECHECK_SUBNORMALS_KEPT; });
  add(Bug::exp_log_declared_power, "policy_exp_log", [](impl::PolicyKernel& k) {
    k.policy.ext2.freq_form = ROPECHECK_FREQ_POWER;
    k.policy.ext2.freq_exp_slope = 0;
  });
  add(Bug::formula_declared_table, "policy_freq_table",
      [](impl::PolicyKernel& k) { k.form.angle = impl::AngleForm::kInvPowF32; });
  return v;
}

}  // namespace

const impl::PolicyKernel* policy_mutant(Bug bug) {
  static const std::vector<std::pair<Bug, impl::PolicyKernel>> kRows = rows();
  for (const auto& [b, k] : kRows)
    if (b == bug) return &k;
  return nullptr;
}

}  // namespace ropecheck::mutant
