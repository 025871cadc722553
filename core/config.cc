#include "core/config.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/file_read.h"
#include "core/json_reader.h"
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
  throw ConfigError(field, "must be one of default, linear, dynamic, ntk, yarn, llama3, longrope (got '" + type + "')");
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
  return c;
}

RopeConfig parse_hf(const json& j) {
  const Reader top(j, "");
  RopeConfig c;
  // The dict with the scheme: rope_parameters (newer HF), rope_scaling, or
  // the object itself when it carries a rope_type.
  const json* scheme_obj = nullptr;
  std::string scheme_path;
  for (const char* key : {"rope_parameters", "rope_scaling"}) {
    if (top.has(key)) {
      if (!j.at(key).is_object()) throw ConfigError(key, "must be an object or null");
      scheme_obj = &j.at(key);
      scheme_path = std::string(key) + ".";
      // An object that names no scheme ({} included) is a mistake, not the
      // default scheme: null is how a config says "no scaling".
      const Reader r(*scheme_obj, scheme_path);
      if (!r.has("rope_type") && !r.has("type"))
        throw ConfigError(r.name("rope_type"), "missing (the object must name its scheme; use null for none)");
      break;
    }
  }
  // The bare rope_scaling / rope_parameters dict (what --help advertises).
  const bool bare = !scheme_obj && (top.has("rope_type") || top.has("type"));
  if (bare) scheme_obj = &j;
  // Head geometry. GPT-J / GPT-2 configs name the widths n_embd and n_head.
  const char* hidden_key = top.has("hidden_size") ? "hidden_size" : "n_embd";
  const char* heads_key = top.has("num_attention_heads") ? "num_attention_heads" : "n_head";
  if (top.has("qk_rope_head_dim")) {
    // DeepSeek MLA: only the qk_rope_head_dim part of a head is rotated, and
    // it is passed to RoPE as a tensor of its own.
    c.shape.head_dim = static_cast<int>(top.integer("qk_rope_head_dim", 2, ref::kMaxHeadDim));
  } else if (top.has("head_dim")) {
    c.shape.head_dim = static_cast<int>(top.integer("head_dim", 1, ref::kMaxHeadDim));
  } else if (top.has(hidden_key) && top.has(heads_key)) {
    const std::int64_t hidden = top.integer(hidden_key, 1, std::int64_t{1} << 24);
    const std::int64_t heads = top.integer(heads_key, 1, 1 << 16);
    if (hidden % heads != 0)
      throw ConfigError(hidden_key, std::string("must be a multiple of ") + heads_key);
    c.shape.head_dim = static_cast<int>(std::min<std::int64_t>(hidden / heads, ref::kMaxHeadDim + 1));
  } else if (bare) {
    // No head geometry: the cases keep their own shapes (RopeConfig).
    c.shape_stated = false;
    c.shape.head_dim = kNominalHeadDim;
    if (scheme_obj->contains("short_factor") && (*scheme_obj)["short_factor"].is_array())
      c.shape.head_dim = static_cast<int>(std::min<std::size_t>(2 * (*scheme_obj)["short_factor"].size(),
                                                                ref::kMaxHeadDim + 1));
  } else {
    throw ConfigError("head_dim", "is required (or hidden_size and num_attention_heads)");
  }
  c.shape.rotary_dim = c.shape.head_dim;
  if (top.has("rope_interleave")) {  // DeepSeek-V3 in HF: pairs adjacent
    if (!j.at("rope_interleave").is_boolean()) throw ConfigError("rope_interleave", "must be true or false");
    c.layout = j.at("rope_interleave").get<bool>() ? ROPECHECK_LAYOUT_INTERLEAVED : ROPECHECK_LAYOUT_HALF_SPLIT;
  }
  if (top.has("rotary_dim")) {  // GPT-J: rotary part, interleaved pairs
    c.shape.rotary_dim = static_cast<int>(top.integer("rotary_dim", 0, ref::kMaxHeadDim));
    c.layout = ROPECHECK_LAYOUT_INTERLEAVED;
  }
  for (const char* key : {"partial_rotary_factor", "rotary_pct"}) {
    if (!top.has(key)) continue;
    const double f = top.number(key);
    if (!(f > 0.0 && f <= 1.0)) throw ConfigError(key, "must be in (0, 1]");
    c.shape.rotary_dim = static_cast<int>(c.shape.head_dim * f);  // HF: int(head_dim * factor)
  }
  const std::int64_t max_pos =
      top.has("max_position_embeddings") ? top.integer("max_position_embeddings", 1, kMaxPos) : 0;
  // rope_theta lives at the top level, or inside rope_parameters.
  if (top.has("rope_theta")) c.freq.base = top.number("rope_theta");
  else if (top.has("rotary_emb_base")) c.freq.base = top.number("rotary_emb_base");  // GPT-NeoX
  if (scheme_obj) {
    const Reader r(*scheme_obj, scheme_path);
    if (r.has("rope_theta")) c.freq.base = r.number("rope_theta");
    const char* type_key = r.has("rope_type") ? "rope_type" : (r.has("type") ? "type" : nullptr);
    if (type_key) c.freq.scheme = hf_scheme(r.string(type_key), r.name(type_key));
    read_scheme_fields(r, c.freq);
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

}  // namespace

RopeConfig read_rope_config_file(const std::string& path) {
  ReadLimits lim;
  lim.max_bytes = kMaxConfigBytes;
  return parse_rope_config(read_file_bounded(path, lim));
}

RopeConfig parse_rope_config(std::string_view text) {
  if (text.size() > kMaxConfigBytes)
    throw ConfigError("json", "must be at most " + std::to_string(kMaxConfigBytes) + " bytes (got " +
                                  std::to_string(text.size()) + ")");
  // Duplicate keys, NUL bytes, trailing bytes and deep nesting are refused.
  const json j = parse_json_strictly(text);
  if (!j.is_object()) throw ConfigError("json", "must be an object");
  RopeConfig c;
  try {
    c = j.contains("ropecheck_config") ? parse_own(j) : parse_hf(j);
  } catch (const json::exception& e) {
    throw ConfigError("json", std::string("unexpected value: ") + e.what());
  }
  ref::validate(c.freq, c.shape);
  return c;
}

void apply_config(const RopeConfig& config, ref::FreqSpec* freq, ref::HeadShape* shape) {
  *freq = config.freq;
  if (config.shape_stated) {
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
  return j.dump(2);
}

}  // namespace ropecheck
