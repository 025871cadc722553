// SPDX-License-Identifier: MIT
#include "core/config/config.h"

#include <cmath>
#include <limits>
#include <span>

#include <nlohmann/json.hpp>

#include "core/io/file_read.h"
#include "core/config/json_reader.h"
#include "core/config/config_internal.h"
#include "core/config/model_rope.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

using nlohmann::json;
using ref::ConfigError;

using Reader = JsonReader;

constexpr std::int64_t kMaxPos = std::int64_t{1} << 40;

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

// Schemes whose formula needs a scaling factor: leaving it out is an
// error, never a silent factor of 1. (LongRoPE derives its factor from the
// two context lengths when the dict has none, as HF does.)
bool needs_factor(ropecheck_scheme_t s) {
  return s == ROPECHECK_SCHEME_LINEAR || s == ROPECHECK_SCHEME_NTK_AWARE || s == ROPECHECK_SCHEME_DYNAMIC_NTK ||
         s == ROPECHECK_SCHEME_YARN || s == ROPECHECK_SCHEME_LLAMA3;
}

// The scheme fields shared by the HF dict and our schema.
void read_scheme_fields(const Reader& r, ref::FreqSpec& f) {
  if (needs_factor(f.scheme) && !r.has("factor"))
    throw ConfigError(r.name("factor"), "missing (the " + std::string(scheme_name(f.scheme)) + " scheme needs its scaling factor)");
  if (r.has("factor")) f.factor = r.number("factor");
  if (r.has("original_max_position_embeddings"))
    f.original_max_position = r.integer("original_max_position_embeddings", 1, kMaxPos);
  if (r.has("original_max_position")) f.original_max_position = r.integer("original_max_position", 1, kMaxPos);
  if (r.has("beta_fast")) f.beta_fast = r.number("beta_fast");
  if (r.has("beta_slow")) f.beta_slow = r.number("beta_slow");
  if (r.has("truncate")) f.truncate = r.boolean("truncate");
  if (r.has("attention_factor")) f.attention_factor = r.number("attention_factor");
  if (r.has("mscale")) f.mscale = r.number("mscale");
  if (r.has("mscale_all_dim")) f.mscale_all_dim = r.number("mscale_all_dim");
  if (r.has("low_freq_factor")) f.low_freq_factor = r.number("low_freq_factor");
  if (r.has("high_freq_factor")) f.high_freq_factor = r.number("high_freq_factor");
  if (r.has("short_factor")) f.short_factor = r.numbers("short_factor", 2048);
  if (r.has("long_factor")) f.long_factor = r.numbers("long_factor", 2048);
  if (r.has("seq_len")) f.seq_len = r.integer("seq_len", 0, kMaxPos);
}

// A list of whole numbers in [0, kMaxHeadDim] (pair counts, axis indices).
std::vector<std::int32_t> whole_numbers(const Reader& r, const char* key, std::size_t max_count) {
  std::vector<std::int32_t> out;
  for (double n : r.numbers(key, max_count)) {
    if (!(n >= 0 && n <= ref::kMaxHeadDim && exactly_equal(n, std::trunc(n))))
      throw ConfigError(r.name(key), "must hold whole numbers in [0, " + std::to_string(ref::kMaxHeadDim) + "]");
    out.push_back(static_cast<std::int32_t>(n));
  }
  return out;
}

// The multi-axis part of ropecheck's own schema: {"assignment": "sections" |
// "interleaved" | "table", "frequencies": "shared" | "per_axis",
// "sections": [...] or "table": [...]}, validated for the config's shape.
ref::AxisSpec read_own_axes(const Reader& r, const RopeConfig& c) {
  ref::AxisSpec a;
  const std::string kind = r.has("assignment") ? r.string("assignment") : "sections";
  if (kind == "sections") a.assignment = ROPECHECK_AXES_SECTIONS;
  else if (kind == "interleaved") a.assignment = ROPECHECK_AXES_INTERLEAVED;
  else if (kind == "table") a.assignment = ROPECHECK_AXES_TABLE;
  else throw ConfigError(r.name("assignment"), "must be sections, interleaved or table (got '" + kind + "')");
  const std::string freqs = r.has("frequencies") ? r.string("frequencies") : "shared";
  if (freqs == "per_axis") a.frequencies = ROPECHECK_AXIS_FREQ_PER_AXIS;
  else if (freqs != "shared") throw ConfigError(r.name("frequencies"), "must be shared or per_axis (got '" + freqs + "')");
  if (a.assignment == ROPECHECK_AXES_TABLE) {
    a.table = whole_numbers(r, "table", ref::kMaxHeadDim / 2);
    int most = -1;
    for (std::int32_t x : a.table) most = std::max(most, static_cast<int>(x));
    a.num_axes = r.has("num_axes") ? static_cast<int>(r.integer("num_axes", 1, ROPECHECK_MAX_AXES)) : most + 1;
  } else {
    a.sections = whole_numbers(r, "sections", ROPECHECK_MAX_AXES);
    a.num_axes = static_cast<int>(a.sections.size());
  }
  try {
    ref::validate_axes(a, c.freq, c.shape);
  } catch (const ConfigError& e) {
    throw ConfigError(r.name(e.field().c_str()), e.message());
  }
  return a;
}

RopeConfig parse_own(const json& j) {
  const Reader r(j, "");
  RopeConfig c;
  if (r.integer("ropecheck_config", 1, 1) != 1) throw ConfigError("ropecheck_config", "must be 1");
  c.shape.head_dim = static_cast<int>(r.integer("head_dim", 1, ref::kMaxHeadDim));
  c.shape.rotary_dim = r.has("rotary_dim") ? static_cast<int>(r.integer("rotary_dim", 0, ref::kMaxHeadDim))
                                           : c.shape.head_dim;
  if (r.has("layout")) {
    ropecheck_layout_t l;
    if (!parse_layout(r.string("layout"), &l)) throw ConfigError("layout", "must be interleaved or half_split");
    c.layout = l;
  }
  if (r.has("scheme")) {
    ropecheck_scheme_t s;
    if (!parse_scheme(r.string("scheme"), &s))
      throw ConfigError("scheme", "must be one of default, linear, ntk, dynamic_ntk, yarn, llama3, longrope, explicit");
    c.freq.scheme = s;
  }
  if (r.has("base")) c.freq.base = r.number("base");
  if (!r.has("scheme") && r.has("factor")) throw ConfigError("scheme", "missing (a factor needs its scheme)");
  read_scheme_fields(r, c.freq);
  if (r.has("inv_freq")) c.freq.inv_freq = r.numbers("inv_freq", 2048);
  if (r.has("axes")) c.axes = read_own_axes(Reader(r.at("axes"), "axes."), c);
  return c;
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

void read_rotary_fraction(const Reader& r, const char* key, RopeConfig& c) {
  if (!r.has(key)) return;
  const double f = r.number(key);
  if (!(f > 0.0 && f <= 1.0)) throw ConfigError(r.name(key), "must be in (0, 1]");
  c.shape.rotary_dim = static_cast<int>(c.shape.head_dim * f);  // HF: int(head_dim * factor)
}

}  // namespace

namespace detail {

const json* rope_dict_of(const json& top, const std::string& top_path, std::string* dict_path) {
  const Reader r(top, top_path);
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

// M-RoPE: mrope_section's pair counts per axis (t, h, w) of Qwen2-VL
// (transformers configuration_qwen2_vl.py; arXiv:2409.12191 section 2.1),
// round robin when mrope_interleaved is true (Qwen3-VL,
// modeling_qwen3_vl.py apply_interleaved_mrope). Validated against the
// config's rotary dim: the sections must cover its pairs.
void read_mrope(const Reader& r, RopeConfig& c) {
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

namespace {

// The head's width: DeepSeek's qk_rope_head_dim, head_dim, ChatGLM's
// kv_channels or hidden / heads; for a bare scheme dict (`bare_scheme`)
// without them, a nominal width the cases replace.
void read_head_width(const Reader& top, const json* bare_scheme, RopeConfig& c) {
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
void read_pairing(const json& j, const Reader& top, const std::string& model_type, RopeConfig& c) {
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

RopeConfig read_hf_rope(const json& j, const std::string& top_path, const json* scheme_obj,
                        const std::string& scheme_path) {
  const Reader top(j, top_path);
  RopeConfig c;
  if (scheme_obj) {
    // An object that names no scheme ({} included) is a mistake, not the
    // default scheme: null is how a config says "no scaling".
    const Reader r(*scheme_obj, scheme_path);
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
  if (top.has("max_position_embeddings")) max_pos = top.integer("max_position_embeddings", 1, kMaxPos);
  else if (top.has("seq_length")) max_pos = top.integer("seq_length", 1, kMaxPos);  // ChatGLM
  // rope_theta lives at the top level, or inside rope_parameters.
  if (top.has("rope_theta")) c.freq.base = top.number("rope_theta");
  else if (top.has("rotary_emb_base")) c.freq.base = top.number("rotary_emb_base");  // GPT-NeoX
  if (scheme_obj) {
    const Reader r(*scheme_obj, bare ? top_path : scheme_path);
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
    c.freq.original_max_position = top.integer("original_max_position_embeddings", 1, kMaxPos);
  if (c.freq.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK && max_pos > 0) c.freq.original_max_position = max_pos;
  if (c.freq.original_max_position == 0 && max_pos > 0) c.freq.original_max_position = max_pos;
  if (c.freq.scheme == ROPECHECK_SCHEME_LONGROPE && !(scheme_obj && Reader(*scheme_obj, "").has("factor")) &&
      max_pos > 0 && c.freq.original_max_position > 0)
    c.freq.factor = static_cast<double>(max_pos) / static_cast<double>(c.freq.original_max_position);
  return c;
}

RopeConfig read_own_schema(const json& j) { return parse_own(j); }

}  // namespace detail

RopeConfig read_rope_config_file(const std::string& path) {
  ReadLimits lim;
  lim.max_bytes = kMaxConfigBytes;
  return parse_rope_config(read_file_bounded(path, lim));
}

RopeConfig parse_rope_config(std::string_view text) {
  ModelRope m = parse_model_rope(text);
  if (m.layer_types.size() != 1) {
    std::string names;
    for (const auto& t : m.layer_types) names += (names.empty() ? "" : ", ") + t.name;
    throw ConfigError("layer_types", "the model has " + std::to_string(m.layer_types.size()) +
                                         " layer types with different RoPE (" + names +
                                         "); read it with parse_model_rope, which gives one config per layer type");
  }
  return std::move(m.layer_types.front().config);
}

void apply_config(const RopeConfig& config, ref::FreqSpec* freq, ref::HeadShape* shape) {
  *freq = config.freq;
  if (config.shape_stated || config.axes.multi()) {  // M-RoPE sections cover the config's rotary dim
    *shape = config.shape;
    return;
  }
  try {
    ref::validate(config.freq, *shape);
  } catch (const ConfigError&) {
    *shape = config.shape;
  }
}

std::string config_to_json(const RopeConfig& c) {
  json j;
  j["ropecheck_config"] = 1;
  j["head_dim"] = c.shape.head_dim;
  j["rotary_dim"] = c.shape.rotary_dim;
  if (c.layout) j["layout"] = std::string(layout_name(*c.layout));
  const ref::FreqSpec& f = c.freq;
  j["scheme"] = std::string(scheme_name(f.scheme));
  j["base"] = f.base;
  j["factor"] = f.factor;
  if (f.original_max_position > 0) j["original_max_position"] = f.original_max_position;
  j["seq_len"] = f.seq_len;
  j["beta_fast"] = f.beta_fast;
  j["beta_slow"] = f.beta_slow;
  j["truncate"] = f.truncate;
  if (f.attention_factor) j["attention_factor"] = *f.attention_factor;
  j["mscale"] = f.mscale;
  j["mscale_all_dim"] = f.mscale_all_dim;
  j["low_freq_factor"] = f.low_freq_factor;
  j["high_freq_factor"] = f.high_freq_factor;
  if (!f.short_factor.empty()) j["short_factor"] = f.short_factor;
  if (!f.long_factor.empty()) j["long_factor"] = f.long_factor;
  if (!f.inv_freq.empty()) j["inv_freq"] = f.inv_freq;
  if (c.axes.multi()) {
    const ref::AxisSpec& a = c.axes;
    json axes;
    axes["assignment"] = a.assignment == ROPECHECK_AXES_INTERLEAVED ? "interleaved"
                         : a.assignment == ROPECHECK_AXES_TABLE     ? "table"
                                                                    : "sections";
    axes["frequencies"] = std::string(axis_frequencies_name(a.frequencies));
    if (a.assignment == ROPECHECK_AXES_TABLE) {
      axes["num_axes"] = a.num_axes;
      axes["table"] = a.table;
    } else {
      axes["sections"] = a.sections;
    }
    j["axes"] = axes;
  }
  return j.dump(2);
}

}  // namespace ropecheck
