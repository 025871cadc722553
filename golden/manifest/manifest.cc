// SPDX-License-Identifier: MIT
// manifest.json of a golden export, written: the format and schema names, the
// tensors' conventions and manifest_to_json (manifest_parse.cc reads it back).
#include "golden/manifest/manifest.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ropecheck/dtype.h"
#include "core/io/file_read.h"
#include "core/config/json_reader.h"
#include "golden/catalog/catalog.h"
#include "core/io/sha256.h"
#include "golden/manifest/axes_json.h"
#include "golden/catalog/bug_classes.h"
#include "golden/fused/kv_golden.h"
#include "golden/manifest/manifest_outputs.h"

namespace ropecheck::golden {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// The tensors of a case, documented once in the manifest itself: one row
// per tensor name, from the schema version on which the manifest lists it
// (a fused case's from 4 on, the fused inputs' from 5 on), in the order
// the manifest lists them.
struct TensorConvention {
  int since;
  const char* name;
  const char* text;
};
constexpr TensorConvention kTensorConventions[] = {
    {1, "q", "inputs [tokens, q_heads, head_dim] in the case dtype (bf16 as uint16 bits in npy)"},
    {1, "k", "inputs [tokens, kv_heads, head_dim]"},
    {1, "positions", "position ids, int64: [tokens]; for a case with axes, [numAxes, tokens] (axis-major: row a holds "
                     "every token's position on axis a)"},
    {1, "q_expected", "exact result correctly rounded (nearest-even) to the case dtype; pass-through channels = input"},
    {1, "k_expected", "as q_expected"},
    {1, "q_expected_f64", "exact result rounded to float64"},
    {1, "k_expected_f64", "as q_expected_f64"},
    {1, "inv_freq", "exact frequencies w_i [rotary_dim / 2] rounded to float64 (after the scheme's scaling); with "
                    "axes, each pair's own (per_axis frequencies: w_j of the scheme over twice its axis's pair count, "
                    "j its index among its axis's pairs)"},
    {1, "pair_axis", "cases with axes only: the axis of each pair [rotary_dim / 2], int64, as axes.assignment "
                     "defines it (a convenience: the manifest's axes is the definition)"},
    {1, "angle", "exact p * w_i [tokens, rotary_dim / 2] rounded to float64; with axes, p = positions[pair_axis[i], "
                 "token]"},
    {1, "cos", "exact cos(p * w_i) [tokens, rotary_dim / 2] rounded to float64, without the attention factor"},
    {1, "sin", "as cos"},
    {1, "q_budget_<policy>", "allowed |result - q_expected_f64| per element for an implementation with that "
                             "precision policy (docs/ERROR_MODEL.md); 0 on pass-through channels, which must be "
                             "bit-identical to the input"},
    {1, "k_budget_<policy>", "as q_budget_<policy>"},
    {1, "q_output_<n>", "schema 3: an output of the case other than the exact one, in the case dtype (a case's "
                        "outputs name theirs): what a mutant of ropecheck's bug catalogue computed on q"},
    {1, "k_output_<n>", "as q_output_<n>, for k"},
    {1, "rotation", "pair i of a head is (x[i], x[i + rotary_dim/2]) for half_split and (x[2i], x[2i+1]) for "
                    "interleaved; forward: (x cos a - y sin a, x sin a + y cos a) * attention_factor; inverse "
                    "uses -a"},
    {4, "v", "cases with a kvWrite: the v written beside k [tokens, kv_heads, head_dim] in the case dtype (MLA: the "
             "latent kv_c [tokens, 1, latentDim])"},
    {4, "slot_mapping", "cases with a kvWrite: the slot of each token [tokens], int64; -1 is a padding token (nothing "
                        "written, its q and k still rotated); slot s is block s / blockSize, entry s % blockSize"},
    {4, "k_scale", "cases with a kvWrite: the fp32 scale(s) of k [1 (per_tensor) or kv_heads (per_head)]: the "
                   "cache holds round(k / s) (scaleDirection divide) or round(k * s) (multiply), computed in fp32"},
    {4, "v_scale", "as k_scale, for v (MLA: equal to k_scale)"},
    {4, "k_cache_before", "cases with a kvWrite: the K cache before the call, in the cache dtype (fp8 as uint8 "
                          "codes) and the layout's shape: NHD [numBlocks, blockSize, kv_heads, head_dim], HND "
                          "[numBlocks, kv_heads, blockSize, head_dim], mla_joint [numBlocks, blockSize, latentDim + "
                          "head_dim] ([kv_c | k_pe]), mla_split [numBlocks, blockSize, head_dim]"},
    {4, "v_cache_before", "as k_cache_before, for the V cache (mla_split: kv_c's cache [numBlocks, blockSize, "
                          "latentDim]; none for mla_joint)"},
    {4, "k_cache_expected", "the K cache a correct kernel leaves, exactly rounded: every written element holds the "
                            "exact value (the rotated k, pass-through channels as given) scaled and rounded to "
                            "nearest even in the cache dtype (saturating when saturate is true); every other "
                            "element as before"},
    {4, "v_cache_expected", "as k_cache_expected, for the V cache"},
    {4, "k_cache_index", "element [t, h, c] of k is written to the K cache's flat element k_cache_index[t, h, c] (-1 "
                         "for a padding token), int64"},
    {4, "v_cache_index", "element [t, h, c] of v is written to the flat element v_cache_index[t, h, c] of the V "
                         "cache (of the K cache for mla_joint), -1 for a padding token"},
    {4, "k_cache_lo_<policy>", "the lowest code ordinal element [t, h, c] of k may be written as, for a kernel with "
                               "that precision policy's rotation and the kvWrite's declared scale arithmetic "
                               "(docs/ERROR_MODEL.md, E9); a code's ordinal is its magnitude bits, negated when its "
                               "sign bit is set (+0 and -0 are 0)"},
    {4, "k_cache_hi_<policy>", "the highest such ordinal; a written element is correct when lo <= ordinal <= hi, "
                               "every element no token writes must keep the bits of the cache before"},
    {4, "v_cache_lo", "as k_cache_lo_<policy>, for v (exact inputs: the same for every policy)"},
    {4, "v_cache_hi", "as k_cache_hi_<policy>, for v"},
    {4, "k_cache_output_<n>", "schema 4: the K cache a mutant left (a case's outputs name theirs)"},
    {4, "v_cache_output_<n>", "as k_cache_output_<n>, for the V cache"},
    {5, "q_norm_weight", "cases with a qkNorm: the norm's weight w of q [head_dim] in the case dtype; every head of q "
                         "is normalised over all its head_dim channels, n_j = x_j w'_j / sqrt(mean_j(x_j^2) + eps) "
                         "(w' = w, or 1 + w for weightForm one_plus_w), then its rotary channels rotated; such a "
                         "case's q_expected / q_expected_f64 are the normalised values rotated (pass-through channels: "
                         "the normalised values, with a budget of their own)"},
    {5, "k_norm_weight", "as q_norm_weight, for k"},
    {5, "cos_sin_cache", "cases with a cosSinCache: the caller's cos/sin cache [rows, rotary_dim] in its dtype, row p "
                         "holding attention_factor * cos(p w_i) for i < rotary_dim / 2, then attention_factor * "
                         "sin(p w_i), each exact value rounded once to the dtype; every row no position names holds "
                         "a quiet NaN. A kernel reads it (no angles of its own) and must not modify it; such a case's "
                         "budgets are those of a kernel reading it"},
};

ordered_json tensor_conventions(int version) {
  ordered_json t = ordered_json::object();
  for (const TensorConvention& c : kTensorConventions)
    if (c.since <= version) t[c.name] = c.text;
  return t;
}

}  // namespace

std::string manifest_schema_name(int version) {
  return "ropecheck_golden_manifest_v" + std::to_string(version) + ".schema.json";
}

const char* format_name(Format f) {
  switch (f) {
    case Format::kNpy: return "npy";
    case Format::kJson: return "json";
    default: return "safetensors";
  }
}

bool parse_format(std::string_view s, Format* out) {
  for (Format f : {Format::kSafetensors, Format::kNpy, Format::kJson})
    if (s == format_name(f)) return *out = f, true;
  return false;
}

std::string manifest_to_json(const Manifest& m) {
  ordered_json flags = ordered_json::object();
  for (const auto& f : flag_catalog()) flags[f.name] = {{"description", f.description}, {"bugClass", f.bug_class}};
  if (m.schema_version >= 4)
    for (const auto& f : fused_flag_catalog()) flags[f.name] = {{"description", f.description}, {"bugClass", f.bug_class}};
  if (m.schema_version >= 5)
    for (const auto& f : fused_input_flag_catalog())
      flags[f.name] = {{"description", f.description}, {"bugClass", f.bug_class}};
  ordered_json policies = ordered_json::object();
  for (const auto& p : budget_policies()) {
    const ropecheck_policy_t& b = p.policy.base;
    const ropecheck_policy_ext_t& e = p.policy.ext;
    policies[p.name] = {{"description", p.description},
                        {"freqDtype", dtype_name(static_cast<ropecheck_dtype_t>(b.freq_dtype))},
                        {"angle", angle_mode_name(b.angle_mode)},
                        {"sincos", "libm"},
                        {"mathDtype", policy_dtype_name(b.math_dtype)},
                        {"cosSinDtype", policy_dtype_name(b.cache_dtype)},
                        {"rotation", rotation_form_name(e.rotation_form)},
                        {"sincosMaxUlp", e.sincos_max_ulp > 0 ? e.sincos_max_ulp : 1.0},
                        {"freqPowMaxUlp", e.freq_pow_max_ulp > 0 ? e.freq_pow_max_ulp : 1.0}};
  }
  ordered_json bug_classes = ordered_json::object();
  for (const auto& b : bug_class_catalog()) bug_classes[b.name] = {{"description", b.description}};
  ordered_json cases = ordered_json::array();
  for (const CaseEntry& e : m.cases) {
    ordered_json files = ordered_json::array();
    for (const auto& f : e.files) files.push_back({{"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}});
    ordered_json c = {{"id", e.id},
              {"name", e.name},
              {"comment", e.comment},
              {"flags", e.flags},
              {"config", ordered_json::parse(config_to_json(e.config))},
              {"dtype", dtype_name(e.dtype)},
              {"direction", e.direction == ROPECHECK_DIRECTION_INVERSE ? "inverse" : "forward"},
              {"tokens", e.tokens},
              {"qHeads", e.q_heads},
              {"kvHeads", e.kv_heads},
              {"attentionFactor", e.attention_factor},
              {"attentionFactorHex", format_hex_float(e.attention_factor)},
              {"files", files}};
    if (!e.model.empty()) c["model"] = e.model;
    if (e.axes.multi()) c["axes"] = axes_to_json(e.axes);
    if (e.kv_write) c["kvWrite"] = kv_write_to_json(*e.kv_write);
    if (e.qk_norm) c["qkNorm"] = norm_to_json(*e.qk_norm);
    if (e.cos_sin_cache) c["cosSinCache"] = cos_sin_cache_to_json(*e.cos_sin_cache);
    if (m.schema_version >= 3) c["outputs"] = outputs_to_json(e.outputs);
    cases.push_back(c);
  }
  const ordered_json doc = {{"schema", manifest_schema_name(m.schema_version)},
                    {"schemaVersion", m.schema_version},
                    {"generator", m.generator},
                    {"referencePrecisionBits", m.reference_bits},
                    {"suite", m.suite},
                    {"format", format_name(m.format)},
                    {"numberOfCases", m.cases.size()},
                    {"tensors", tensor_conventions(m.schema_version)},
                    {"flags", flags},
                    {"policies", policies},
                    {"cases", cases}};
  if (m.schema_version >= 3) {  // bugClasses after flags, as the schema lists them
    ordered_json with = ordered_json::object();
    for (const auto& [k, v] : doc.items()) {
      with[k] = v;
      if (k == "flags") with["bugClasses"] = bug_classes;
    }
    return with.dump(1) + "\n";
  }
  return doc.dump(1) + "\n";
}

}  // namespace ropecheck::golden
