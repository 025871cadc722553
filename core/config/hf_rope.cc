// SPDX-License-Identifier: MIT
// One rope read from a Hugging Face config object and its rope_scaling / rope_parameters dict.
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "core/config/config_internal.h"
#include "core/config/json_reader.h"
#include "ropecheck/names.h"

namespace ropecheck::detail {
namespace {

using nlohmann::json;
using ref::ConfigError;

ropecheck_scheme_t hf_scheme(const std::string& type, const std::string& field) {
  if (type == "default") return ROPECHECK_SCHEME_DEFAULT;
  if (type == "linear") return ROPECHECK_SCHEME_LINEAR;
  if (type == "dynamic") return ROPECHECK_SCHEME_DYNAMIC_NTK;
  if (type == "ntk") return ROPECHECK_SCHEME_NTK_AWARE;  // static NTK-aware (not an HF rope_type)
  if (type == "yarn") return ROPECHECK_SCHEME_YARN;
  if (type == "llama3") return ROPECHECK_SCHEME_LLAMA3;
  if (type == "longrope" || type == "su") return ROPECHECK_SCHEME_LONGROPE;
  // Qwen2-VL's "mrope": the default frequencies, positions by mrope_section
  // (transformers configuration_qwen2_vl.py turns it into "default").
  if (type == "mrope") return ROPECHECK_SCHEME_DEFAULT;
  throw ConfigError(field, "must be one of default, linear, dynamic, ntk, yarn, llama3, longrope, mrope (got '" + type +
                               "')");
}

// The fields a rope_scaling / rope_parameters dict may hold (transformers'
// modeling_rope_utils.py reads these, and rope_theta / partial_rotary_factor
// moved inside the dict in Transformers v5). Any other key is a field
// ropecheck does not understand: an error, never silently ignored (#21).
constexpr const char* kRopeDictKeys[] = {
    "rope_type", "type", "factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "truncate",
    "attention_factor", "mscale", "mscale_all_dim", "low_freq_factor", "high_freq_factor", "short_factor",
    "long_factor", "rope_theta", "partial_rotary_factor", "mrope_section", "mrope_interleaved"};
// Head geometry a bare rope dict may carry beside its scheme.
constexpr const char* kBareGeometryKeys[] = {"head_dim", "hidden_size", "num_attention_heads", "max_position_embeddings"};

bool in_list(const std::string& key, std::span<const char* const> list) {
  for (const char* k : list)
    if (key == k) return true;
  return false;
}

void require_known_rope_keys(const json& dict, const std::string& path, bool bare) {
  for (const auto& [key, value] : dict.items()) {
    (void)value;
    if (in_list(key, kRopeDictKeys) || (bare && in_list(key, kBareGeometryKeys))) continue;
    // key_name: an empty key still names a field (config_parser_fuzzer).
    throw ConfigError(path + key_name(key), "is not a RoPE field ropecheck understands (it reads: rope_type, type, factor, "
                                  "original_max_position_embeddings, beta_fast, beta_slow, truncate, attention_factor, "
                                  "mscale, mscale_all_dim, low_freq_factor, high_freq_factor, short_factor, long_factor, "
                                  "rope_theta, partial_rotary_factor, mrope_section, mrope_interleaved)");
  }
}

void read_rotary_fraction(const JsonReader& r, const char* key, RopeConfig& c) {
  if (!r.has(key)) return;
  const double f = r.number(key);
  if (!(f > 0.0 && f <= 1.0)) throw ConfigError(r.name(key), "must be in (0, 1]");
  c.shape.rotary_dim = static_cast<int>(c.shape.head_dim * f);  // HF: int(head_dim * factor)
}

// M-RoPE: mrope_section's pair counts per axis (t, h, w) of Qwen2-VL
// (transformers configuration_qwen2_vl.py; arXiv:2409.12191 section 2.1),
// round robin when mrope_interleaved is true (Qwen3-VL,
// modeling_qwen3_vl.py apply_interleaved_mrope). Validated against the
// config's rotary dim: the sections must cover its pairs.
void read_mrope(const JsonReader& r, RopeConfig& c) {
  if (!r.has("mrope_section")) {
    if (r.has("mrope_interleaved")) throw ConfigError(r.name("mrope_interleaved"), "given without mrope_section");
    return;
  }
  c.axes = ref::AxisSpec{};
  c.axes.sections = whole_numbers(r, "mrope_section", ROPECHECK_MAX_AXES);
  if (c.axes.sections.empty())
    throw ConfigError(r.name("mrope_section"), "must list 1 to " + std::to_string(ROPECHECK_MAX_AXES) + " pair counts");
  c.axes.num_axes = static_cast<int>(c.axes.sections.size());
  if (r.has("mrope_interleaved") && r.boolean("mrope_interleaved")) c.axes.assignment = ROPECHECK_AXES_INTERLEAVED;
  try {
    ref::validate_axes(c.axes, c.freq, c.shape);
  } catch (const ConfigError& e) {
    throw ConfigError(r.name("mrope_section"), e.message());
  }
}

// The head's width: DeepSeek's qk_rope_head_dim, head_dim, ChatGLM's
// kv_channels or hidden / heads; for a bare scheme dict (`bare_scheme`)
// without them, a nominal width the cases replace.
void read_head_width(const JsonReader& top, const json* bare_scheme, RopeConfig& c) {
  // GPT-J / GPT-2 configs name the widths n_embd and n_head.
  const char* hidden_key = top.has("hidden_size") ? "hidden_size" : "n_embd";
  const char* heads_key = top.has("num_attention_heads") ? "num_attention_heads" : "n_head";
  if (top.has("qk_rope_head_dim")) {
    // DeepSeek MLA (and MiniCPM3): only the qk_rope_head_dim part of a head
    // is rotated, and it is passed to RoPE as a tensor of its own.
    c.shape.head_dim = static_cast<int>(top.integer("qk_rope_head_dim", 2, ref::kMaxHeadDim));
  } else if (top.has("head_dim")) {
    c.shape.head_dim = static_cast<int>(top.integer("head_dim", 1, ref::kMaxHeadDim));
  } else if (top.has("kv_channels")) {  // ChatGLM names the head width kv_channels
    c.shape.head_dim = static_cast<int>(top.integer("kv_channels", 1, ref::kMaxHeadDim));
  } else if (top.has(hidden_key) && top.has(heads_key)) {
    const std::int64_t hidden = top.integer(hidden_key, 1, std::int64_t{1} << 24);
    const std::int64_t heads = top.integer(heads_key, 1, 1 << 16);
    if (hidden % heads != 0)
      throw ConfigError(top.name(hidden_key), std::string("must be a multiple of ") + heads_key);
    c.shape.head_dim = static_cast<int>(std::min<std::int64_t>(hidden / heads, ref::kMaxHeadDim + 1));
  } else if (bare_scheme) {
    // No head geometry: the cases keep their own shapes (RopeConfig).
    c.shape_stated = false;
    c.shape.head_dim = kNominalHeadDim;
    if (bare_scheme->contains("short_factor") && (*bare_scheme)["short_factor"].is_array())
      c.shape.head_dim = static_cast<int>(std::min<std::size_t>(2 * (*bare_scheme)["short_factor"].size(),
                                                                ref::kMaxHeadDim + 1));
  } else {
    throw ConfigError(top.name("head_dim"), "is required (or hidden_size and num_attention_heads)");
  }
}

// The rotated part of a head and how its channels pair.
void read_pairing(const json& j, const JsonReader& top, const std::string& model_type, RopeConfig& c) {
  c.shape.rotary_dim = c.shape.head_dim;
  // The pairing layout of the model's own implementation where it is not
  // rotate_half: GLM-4 and Cohere pair x[2i], x[2i+1] (their rotate_half takes
  // x[..., 0::2] and x[..., 1::2]: transformers models/glm/modeling_glm.py,
  // models/cohere/modeling_cohere.py); Llama 4 multiplies complex numbers
  // formed from adjacent channels (models/llama4/modeling_llama4.py,
  // view_as_complex); DeepSeek-V2/V3 permute q_pe/k_pe into that order
  // (deepseek-ai/DeepSeek-V3 inference/model.py, apply_rotary_emb), which
  // transformers states as rope_interleave (default true); ChatGLM reshapes
  // the rotary part into (.., rot_dim/2, 2) (THUDM modeling_chatglm.py).
  for (const char* t : {"glm", "glm4", "cohere", "cohere2", "llama4", "llama4_text", "deepseek_v2", "deepseek_v3",
                        "chatglm", "gptj", "minicpm3"})
    if (model_type == t) c.layout = ROPECHECK_LAYOUT_INTERLEAVED;
  if (top.has("rope_interleave")) {  // DeepSeek-V3 in HF: pairs adjacent
    if (!j.at("rope_interleave").is_boolean()) throw ConfigError(top.name("rope_interleave"), "must be true or false");
    c.layout = j.at("rope_interleave").get<bool>() ? ROPECHECK_LAYOUT_INTERLEAVED : ROPECHECK_LAYOUT_HALF_SPLIT;
  }
  if (top.has("rotary_dim")) {  // GPT-J: rotary part, interleaved pairs
    c.shape.rotary_dim = static_cast<int>(top.integer("rotary_dim", 0, ref::kMaxHeadDim));
    c.layout = ROPECHECK_LAYOUT_INTERLEAVED;
  }
  read_rotary_fraction(top, "partial_rotary_factor", c);
  read_rotary_fraction(top, "rotary_pct", c);
  if (model_type == "chatglm") {
    // ChatGLM builds RotaryEmbedding(kv_channels // 2) and rotates that many
    // channels of each head, with base 10000 * rope_ratio
    // (THUDM/chatglm3-6b and glm-4-9b-chat modeling_chatglm.py; vLLM
    // model_executor/models/chatglm.py restates it).
    c.shape.rotary_dim = c.shape.head_dim / 2;
    c.freq.base = 10000.0 * (top.has("rope_ratio") ? top.number("rope_ratio") : 1.0);
  }
}

}  // namespace

const json* rope_dict_of(const json& top, const std::string& top_path, std::string* dict_path) {
  const JsonReader r(top, top_path);
  if (r.has("rope_parameters") && r.has("rope_scaling"))
    throw ConfigError(r.name("rope_scaling"), "given together with rope_parameters (a config states one of them)");
  for (const char* key : {"rope_parameters", "rope_scaling"}) {
    if (!r.has(key)) continue;
    if (!top.at(key).is_object()) throw ConfigError(r.name(key), "must be an object or null");
    *dict_path = r.name(key) + ".";
    return &top.at(key);
  }
  return nullptr;
}

RopeConfig read_hf_rope(const json& j, const std::string& top_path, const json* scheme_obj,
                        const std::string& scheme_path) {
  const JsonReader top(j, top_path);
  RopeConfig c;
  if (scheme_obj) {
    // An object that names no scheme ({} included) is a mistake, not the
    // default scheme: null is how a config says "no scaling".
    const JsonReader r(*scheme_obj, scheme_path);
    if (!r.has("rope_type") && !r.has("type"))
      throw ConfigError(r.name("rope_type"), "missing (the object must name its scheme; use null for none)");
    require_known_rope_keys(*scheme_obj, scheme_path, false);
  }
  // The bare rope_scaling / rope_parameters dict (what --help advertises).
  const bool bare = !scheme_obj && (top.has("rope_type") || top.has("type"));
  if (bare) {
    scheme_obj = &j;
    require_known_rope_keys(j, top_path, true);
  }
  const std::string model_type = top.has("model_type") ? top.string("model_type") : "";
  read_head_width(top, bare ? scheme_obj : nullptr, c);
  read_pairing(j, top, model_type, c);
  std::int64_t max_pos = 0;
  if (top.has("max_position_embeddings")) max_pos = top.integer("max_position_embeddings", 1, ref::kMaxConfigPosition);
  else if (top.has("seq_length")) max_pos = top.integer("seq_length", 1, ref::kMaxConfigPosition);  // ChatGLM
  // rope_theta lives at the top level, or inside rope_parameters.
  if (top.has("rope_theta")) c.freq.base = top.number("rope_theta");
  else if (top.has("rotary_emb_base")) c.freq.base = top.number("rotary_emb_base");  // GPT-NeoX
  if (scheme_obj) {
    const JsonReader r(*scheme_obj, bare ? top_path : scheme_path);
    if (r.has("rope_theta")) c.freq.base = r.number("rope_theta");
    const char* type_key = r.has("rope_type") ? "rope_type" : (r.has("type") ? "type" : nullptr);
    if (type_key) c.freq.scheme = hf_scheme(r.string(type_key), r.name(type_key));
    if (!bare) read_rotary_fraction(r, "partial_rotary_factor", c);
    read_scheme_fields(r, c.freq);
    read_mrope(r, c);
  }
  // HF fallbacks: dynamic NTK uses max_position_embeddings as L; YaRN and
  // LongRoPE fall back to it for the original length; LongRoPE derives its
  // factor from the two lengths.
  if (top.has("original_max_position_embeddings") && c.freq.original_max_position == 0)
    c.freq.original_max_position = top.integer("original_max_position_embeddings", 1, ref::kMaxConfigPosition);
  if (c.freq.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK && max_pos > 0) c.freq.original_max_position = max_pos;
  if (c.freq.original_max_position == 0 && max_pos > 0) c.freq.original_max_position = max_pos;
  if (c.freq.scheme == ROPECHECK_SCHEME_LONGROPE && !(scheme_obj && JsonReader(*scheme_obj, "").has("factor")) &&
      max_pos > 0 && c.freq.original_max_position > 0)
    c.freq.factor = static_cast<double>(max_pos) / static_cast<double>(c.freq.original_max_position);
  return c;
}

}  // namespace ropecheck::detail
