// SPDX-License-Identifier: MIT
// The config bugs of the model zoo (issue #21): the definitions of mutants/config_mutants.h.
#include "mutants/config_mutants.h"

#include "mutants/mutant_kernel.h"
#include "mutants/mutant_list.h"

namespace ropecheck::mutant {
namespace {

constexpr ConfigBugInfo kConfigBugs[] = {
    {ConfigBug::local_base_ignored,
     "config_mutant_local_base_ignored",
     "rope_local_base_freq ignored: every layer rotates with Gemma 3's rope_theta 1e6 (vLLM PR #29111)", "gemma-3-1b"},
    {ConfigBug::mscale_all_dim_dropped,
     "config_mutant_mscale_all_dim_dropped",
     "YaRN mscale_all_dim dropped: attention factor g(s, mscale) instead of g(s, mscale) / g(s, mscale_all_dim) "
     "(DeepSeek; SGLang PR #22711)",
     "deepseek-v3"},
    {ConfigBug::truncate_ignored, "config_mutant_truncate_ignored",
     "YaRN truncate: false ignored, the correction range floored/ceiled anyway (gpt-oss; vLLM #27722)", "gpt-oss-20b"},
    {ConfigBug::longrope_switch_off_by_one, "config_mutant_longrope_switch_off_by_one",
     "LongRoPE long factors from seq_len >= original_max_position_embeddings instead of > (Phi-3; unsloth PR "
     "#10681, vLLM PR #27431)",
     "phi-3.5-mini"},
};

// The spec as the buggy port reads it.
ropecheck_freq_spec_t misread(ConfigBug bug, ropecheck_freq_spec_t s) {
  switch (bug) {
    case ConfigBug::local_base_ignored:
      s.base = 1e6;
      break;
    case ConfigBug::mscale_all_dim_dropped:
      if (s.scheme == ROPECHECK_SCHEME_YARN) s.mscale_all_dim = 0;
      break;
    case ConfigBug::truncate_ignored:
      if (s.scheme == ROPECHECK_SCHEME_YARN) s.truncate = 1;
      break;
    case ConfigBug::longrope_switch_off_by_one:
      if (s.scheme == ROPECHECK_SCHEME_LONGROPE && s.seq_len == s.original_max_position) s.seq_len += 1;
      break;
  }
  return s;
}

struct Kernel {
  ConfigBug bug;
};

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const ropecheck_impl_t* control = mutant_impl(Bug::none);
  if (!p || !p->freq) return control->apply(control->ctx, p, err, n);  // the control's contract check answers
  const ropecheck_freq_spec_t freq = misread(static_cast<const Kernel*>(ctx)->bug, *p->freq);
  ropecheck_apply_params_t q = *p;
  q.freq = &freq;
  return control->apply(control->ctx, &q, err, n);
}

}  // namespace

std::span<const ConfigBugInfo> config_bugs() { return kConfigBugs; }

const ropecheck_impl_t* config_mutant_impl(ConfigBug bug) {
  static const auto* tables = [] {
    static Kernel kernels[std::size(kConfigBugs)];
    static ropecheck_impl_t t[std::size(kConfigBugs)];
    for (std::size_t i = 0; i < std::size(kConfigBugs); ++i) {
      kernels[i].bug = kConfigBugs[i].bug;
      t[i] = *mutant_impl(Bug::none);  // the control's caps, policy and ABI version
      t[i].name = kConfigBugs[i].name;
      t[i].description = kConfigBugs[i].description;
      t[i].ctx = &kernels[i];
      t[i].apply = apply;
      t[i].build_cache = nullptr;
    }
    return t;
  }();
  return &tables[static_cast<int>(bug)];
}

}  // namespace ropecheck::mutant
