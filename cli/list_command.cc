#include "cli/list_command.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#include "impls/registry.h"
#include "ropecheck/dtype.h"
#include "ropecheck/policy.h"

namespace ropecheck::cli {
namespace {

std::string bits_to_names(std::uint32_t mask, int count, std::string_view (*name)(int)) {
  std::string s;
  for (int i = 0; i < count; ++i)
    if (mask & (1u << i)) s += (s.empty() ? "" : ",") + std::string(name(i));
  return s;
}

std::string_view dtype_n(int i) { return dtype_name(static_cast<ropecheck_dtype_t>(i)); }
std::string_view layout_n(int i) { return layout_name(static_cast<ropecheck_layout_t>(i)); }
std::string_view scheme_n(int i) { return scheme_name(static_cast<ropecheck_scheme_t>(i)); }

std::string policy_text(const Policy& policy) {
  const ropecheck_policy_t& p = policy.base;
  const ropecheck_policy_ext_t& e = policy.ext;
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return std::string(b);
  };
  std::string s = "freq " + std::string(dtype_n(static_cast<int>(p.freq_dtype)));
  if (e.freq_pow_max_ulp > 0) s += " (pow " + num(e.freq_pow_max_ulp) + " ulp)";
  s += ", angle " + std::string(angle_mode_name(p.angle_mode));
  if (e.positions_f32) s += " of fp32 positions";
  if (p.sincos == ROPECHECK_SINCOS_FAST) {
    s += ", fast sincos (<= " + num(p.sincos_max_abs_error) + " abs";
    if (e.sincos_abs_error_range > 0) s += " for |x| <= " + num(e.sincos_abs_error_range);
    if (e.sincos_phase_error_slope > 0) s += ", phase error <= " + num(e.sincos_phase_error_slope) + " |x|";
    s += ")";
  } else {
    s += ", libm sincos (" + num(e.sincos_max_ulp > 0 ? e.sincos_max_ulp : 1.0) + " ulp)";
  }
  s += ", math " + std::string(policy_dtype_name(p.math_dtype)) + " " +
       std::string(rotation_form_name(e.rotation_form));
  s += ", cos/sin " + std::string(policy_dtype_name(p.cache_dtype));
  return s;
}

std::string flags_text(std::uint32_t f) {
  std::string s;
  auto add = [&](std::uint32_t bit, const char* n) {
    if (f & bit) s += (s.empty() ? "" : ",") + std::string(n);
  };
  add(ROPECHECK_CAP_IN_PLACE, "in-place");
  add(ROPECHECK_CAP_OUT_OF_PLACE, "out-of-place");
  add(ROPECHECK_CAP_COS_SIN_CACHE, "cos/sin-cache");
  add(ROPECHECK_CAP_INVERSE, "inverse");
  add(ROPECHECK_CAP_PARTIAL_ROTARY, "partial-rotary");
  add(ROPECHECK_CAP_POS_INT32, "pos-i32");
  add(ROPECHECK_CAP_POS_INT64, "pos-i64");
  add(ROPECHECK_CAP_NEGATIVE_POSITIONS, "negative-positions");
  add(ROPECHECK_CAP_YARN_TRUNCATED_ONLY, "yarn-truncated-only");
  add(ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR, "no-explicit-attention-factor");
  add(ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN, "no-runtime-seq-len");
  add(ROPECHECK_CAP_SEQ_STRIDES, "seq-strides");
  add(ROPECHECK_CAP_BATCH_INVARIANT, "batch-invariant");
  return s;
}

}  // namespace

CLI::App* add_list_command(CLI::App& app) {
  return app.add_subcommand("list", "List the built-in implementations, their capabilities and precision policies");
}

int run_list() {
  for (const RegisteredImpl& row : registered_impls()) {
    const ropecheck_impl_t* impl = row.table;
    const std::string note = row.default_set ? "" : "  (not in the default set: --impl " + std::string(impl->name) + ")";
    std::cout << impl->name << note
              << "\n  " << impl->description << "\n";
    if (impl->target) std::cout << "  target:   " << impl->target(impl->ctx) << "\n";
    std::cout << "  layouts:  " << bits_to_names(impl->caps.layouts, ROPECHECK_LAYOUT_COUNT, layout_n)
              << "\n  dtypes:   " << bits_to_names(impl->caps.dtypes, ROPECHECK_DTYPE_COUNT, dtype_n)
              << "\n  schemes:  " << bits_to_names(impl->caps.schemes, ROPECHECK_SCHEME_COUNT, scheme_n)
              << "\n  head_dim: <= " << impl->caps.max_head_dim
              << "\n  flags:    " << flags_text(impl->caps.flags)
              << "\n  policy:   " << policy_text(policy_of(*impl)) << "\n";
  }
  return 0;
}

}  // namespace ropecheck::cli
