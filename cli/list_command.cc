// SPDX-License-Identifier: MIT
// `ropecheck list`: the definitions of cli/list_command.h.
#include "cli/list_command.h"

#include <cstdio>
#include <iostream>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>
#include <string_view>

#include "core/error_model/cache_write_budget.h"
#include "gate/policy_text.h"
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

// The names of the bits of f that `names` lists, comma-separated.
std::string bit_names(std::uint32_t f, std::initializer_list<std::pair<std::uint32_t, const char*>> names) {
  std::string s;
  for (const auto& [bit, n] : names)
    if (f & bit) s += (s.empty() ? "" : ",") + std::string(n);
  return s;
}

std::string flags_text(std::uint32_t f) {
  return bit_names(f, {{ROPECHECK_CAP_IN_PLACE, "in-place"},
                       {ROPECHECK_CAP_OUT_OF_PLACE, "out-of-place"},
                       {ROPECHECK_CAP_COS_SIN_CACHE, "cos/sin-cache"},
                       {ROPECHECK_CAP_CALLER_COS_SIN_CACHE, "caller-cos/sin-cache"},
                       {ROPECHECK_CAP_INVERSE, "inverse"},
                       {ROPECHECK_CAP_PARTIAL_ROTARY, "partial-rotary"},
                       {ROPECHECK_CAP_POS_INT32, "pos-i32"},
                       {ROPECHECK_CAP_POS_INT64, "pos-i64"},
                       {ROPECHECK_CAP_NEGATIVE_POSITIONS, "negative-positions"},
                       {ROPECHECK_CAP_YARN_TRUNCATED_ONLY, "yarn-truncated-only"},
                       {ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR, "no-explicit-attention-factor"},
                       {ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN, "no-runtime-seq-len"},
                       {ROPECHECK_CAP_SEQ_STRIDES, "seq-strides"},
                       {ROPECHECK_CAP_BATCH_INVARIANT, "batch-invariant"}});
}

// ABI 1.3: the multi-axis forms a kernel takes ("-" for none).
std::string axes_text(std::uint32_t f) {
  const std::string s = bit_names(f, {{ROPECHECK_CAP_AXES_SECTIONS, "sections"},
                                      {ROPECHECK_CAP_AXES_INTERLEAVED, "interleaved"},
                                      {ROPECHECK_CAP_AXES_TABLE, "table"},
                                      {ROPECHECK_CAP_AXIS_FREQUENCIES, "per-axis-frequencies"}});
  return s.empty() ? "- (one position per token)" : s + " (M-RoPE / axial, ABI 1.3)";
}

// ABI 1.4 to 1.6: the fused operations a kernel grants (and the caller's
// cos/sin cache it reads) and how it declares them, one per line.
std::string fused_text(const ropecheck_impl_t& t) {
  std::vector<std::string> parts;
  if (t.caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE) {
    const ropecheck_kv_policy_t& k = t.kv_policy;
    std::string dtypes;
    for (int d = 0; d < kKvDtypeCount; ++d)
      if (k.cache_dtypes & (1u << d)) dtypes += (dtypes.empty() ? "" : ",") + std::string(kv_dtype_name(static_cast<KvDtype>(d)));
    std::string kinds = bit_names(k.scale_kinds, {{1u << ROPECHECK_KV_SCALE_PER_TENSOR, "per-tensor"},
                                                  {1u << ROPECHECK_KV_SCALE_PER_HEAD, "per-head"}});
    const std::uint32_t ck = t.kv_cache_kinds ? t.kv_cache_kinds : 1u << ROPECHECK_KV_CACHE_K_AND_V;
    const std::string caches = bit_names(ck, {{1u << ROPECHECK_KV_CACHE_K_AND_V, "K and V"},
                                              {1u << ROPECHECK_KV_CACHE_MLA_JOINT, "MLA [kv_c | k_pe]"},
                                              {1u << ROPECHECK_KV_CACHE_MLA_SPLIT, "MLA kv_c, k_pe apart"}});
    parts.push_back("kv-cache-write (ABI 1.4): " + caches + " caches of " + dtypes + "; " + kinds + " scales, " +
                    (k.scale_direction == ROPECHECK_KV_SCALE_MULTIPLY ? "round(x * scale)" : "round(x / scale)") +
                    (k.saturate ? ", saturating" : ", not saturating") +
                    (k.via_storage ? ", k as stored" : ", k from the rotation's fp32"));
  }
  if (t.caps.flags & ROPECHECK_CAP_QK_NORM) {
    const ropecheck_norm_policy_t& q = t.norm_policy;
    const char* where = q.intermediate == ROPECHECK_NORM_ROUND_BEFORE_WEIGHT  ? "rounded to the activation dtype before the weight"
                        : q.intermediate == ROPECHECK_NORM_ROUND_AFTER_WEIGHT ? "rounded to the activation dtype after the weight"
                                                                              : "kept in fp32";
    char ulp[32];
    std::snprintf(ulp, sizeof ulp, "%g", q.rsqrt_max_ulp > 0 ? q.rsqrt_max_ulp : 1.0);
    parts.push_back("qk-norm (ABI 1.5): per-head RMSNorm before the rotation, weight " +
                    bit_names(q.weight_forms, {{1u << ROPECHECK_NORM_WEIGHT_W, "w"},
                                               {1u << ROPECHECK_NORM_WEIGHT_ONE_PLUS_W, "1+w"}}) +
                    ", " + where + ", rsqrt " + ulp + " ulp");
  }
  if (t.caps.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE) {
    std::string dtypes = bits_to_names(t.cos_sin_cache_dtypes, ROPECHECK_DTYPE_F64, dtype_n);
    if (t.cos_sin_cache_dtypes & ROPECHECK_COS_SIN_CACHE_OF_STORAGE) dtypes += (dtypes.empty() ? "" : ",") + std::string("storage");
    parts.push_back("caller's cos/sin cache (ABI 1.6): " + dtypes +
                    "; the exact m cos | m sin rounded once to it (its angle and sin/cos policy unused)");
  }
  if (parts.empty()) return "- (RoPE alone)";
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "\n            ") + p;
  return out;
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
              << "\n  axes:     " << axes_text(impl->caps.flags)
              << "\n  fused:    " << fused_text(*impl)
              << "\n  policy:   " << policy_text(policy_of(*impl))
              << (impl->max_position > 0 ? "\n  positions: |id| < " + std::to_string(impl->max_position) + " (max_position, ABI 1.5)"
                                          : std::string())
              << "\n";
  }
  return 0;
}

}  // namespace ropecheck::cli
