// SPDX-License-Identifier: MIT
// A model's whole RoPE from its config.json: a rope per layer type, NoPE layers, ignored fields, the variants the gate
// cycles through.
#include "core/config/model_rope.h"

#include <algorithm>
#include <map>
#include <span>

#include <nlohmann/json.hpp>

#include "core/config/config_internal.h"
#include "core/io/file_read.h"
#include "core/config/json_reader.h"
#include "ropecheck/names.h"

namespace ropecheck {
namespace {

using nlohmann::json;
using ref::ConfigError;

// Top-level fields the reader uses (or that decide whether the model has
// RoPE at all). Every other top-level field is listed as ignored.
constexpr const char* kRopeKeys[] = {
    "model_type", "head_dim", "hidden_size", "num_attention_heads", "n_embd", "n_head", "num_key_value_heads",
    "multi_query_group_num", "kv_channels", "qk_rope_head_dim", "rope_interleave", "rotary_dim",
    "partial_rotary_factor", "rotary_pct", "max_position_embeddings", "seq_length",
    "original_max_position_embeddings", "rope_theta", "rotary_emb_base", "rope_ratio", "original_rope",
    "rope_scaling", "rope_parameters", "rope_local_base_freq", "layer_types", "sliding_window_pattern",
    "_sliding_window_pattern", "num_hidden_layers", "no_rope_layers", "no_rope_layer_interval", "alibi",
    "text_config", "rope_type", "type"};

bool is_rope_key(const std::string& k) {
  return std::any_of(std::begin(kRopeKeys), std::end(kRopeKeys), [&](const char* r) { return k == r; });
}

// A rope_parameters dict keyed by layer type (Transformers v5): no scheme
// of its own, and every value an object.
bool per_layer_type(const json& dict) {
  if (dict.contains("rope_type") || dict.contains("type") || dict.empty()) return false;
  return std::all_of(dict.begin(), dict.end(), [](const json& v) { return v.is_object(); });
}

bool same_rope(const RopeConfig& a, const RopeConfig& b) {
  return config_to_json(a) == config_to_json(b) && a.layout == b.layout && a.shape_stated == b.shape_stated;
}

// Whether '+'-joined `names` has `name` as one of its parts.
bool names_include(const std::string& names, const std::string& name) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = names.find('+', start);
    if (names.compare(start, end == std::string::npos ? std::string::npos : end - start, name) == 0) return true;
    if (end == std::string::npos) return false;
    start = end + 1;
  }
}

std::string layer_ranges(const std::vector<int>& layers) {
  std::string s;
  for (std::size_t i = 0; i < layers.size();) {
    std::size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(layers[i]) + (j > i ? "-" + std::to_string(layers[j]) : "");
    i = j + 1;
  }
  return s;
}

// The part of a config that describes the language model: text_config in
// a multimodal checkpoint (Gemma 3, Llama 4), whose other fields
// (vision_config, token ids) are not RoPE and listed as ignored; else the
// whole config. `prefix` is its JSON path.
const json& language_part(const json& root, std::string* prefix, ModelRope& m) {
  if (!root.contains("text_config") || root.at("text_config").is_null()) return root;
  if (!root.at("text_config").is_object()) throw ConfigError("text_config", "must be an object");
  *prefix = "text_config.";
  for (const auto& [k, v] : root.items())
    if (k != "text_config" && k != "model_type") m.ignored.push_back(k);
  return root.at("text_config");
}

// The model's own fields: the ignored ones, the forms that are not RoPE,
// its type, layer count, context and head counts.
void read_model_fields(const json& root, const json& cfg, const JsonReader& top, const std::string& prefix,
                       ModelRope& m) {
  for (const auto& [k, v] : cfg.items())
    if (!is_rope_key(k)) m.ignored.push_back(prefix + k);
  if (top.has("alibi") && top.boolean("alibi"))
    throw ConfigError(top.name("alibi"), "is true: the model uses ALiBi, not RoPE");
  if (top.has("original_rope") && !top.boolean("original_rope"))
    throw ConfigError(top.name("original_rope"), "is false: ChatGLM's non-original rotary form is not modelled");
  if (top.has("model_type")) m.model_type = top.string("model_type");
  else if (JsonReader(root, "").has("model_type")) m.model_type = JsonReader(root, "").string("model_type");
  if (top.has("num_hidden_layers")) m.num_layers = static_cast<int>(top.integer("num_hidden_layers", 1, 1 << 16));
  if (top.has("max_position_embeddings")) m.max_position = top.integer("max_position_embeddings", 1, ref::kMaxConfigPosition);
  else if (top.has("seq_length")) m.max_position = top.integer("seq_length", 1, ref::kMaxConfigPosition);
  const char* heads_key = top.has("num_attention_heads") ? "num_attention_heads" : "n_head";
  if (top.has(heads_key)) m.q_heads = static_cast<int>(top.integer(heads_key, 1, 1 << 16));
  for (const char* kv : {"num_key_value_heads", "multi_query_group_num"})
    if (top.has(kv)) m.kv_heads = static_cast<int>(top.integer(kv, 1, 1 << 16));
}

// The type of each layer: layer_types, or Gemma 3's sliding_window_pattern
// (layer i is global when (i + 1) % pattern == 0: transformers
// models/gemma3/modeling_gemma3.py, is_sliding); empty when neither is
// given. layer_types sets m's layer count when the config states none.
std::vector<std::string> layer_type_names(const json& cfg, const JsonReader& top, ModelRope& m) {
  std::vector<std::string> types;
  if (top.has("layer_types")) {
    const json& lt = cfg.at("layer_types");
    if (!lt.is_array()) throw ConfigError(top.name("layer_types"), "must be an array of strings");
    for (std::size_t i = 0; i < lt.size(); ++i) {
      if (!lt[i].is_string() || lt[i].get<std::string>().empty())
        throw ConfigError(top.name("layer_types") + "[" + std::to_string(i) + "]", "must be a non-empty string");
      types.push_back(lt[i].get<std::string>());
    }
    if (m.num_layers == 0) m.num_layers = static_cast<int>(types.size());
    if (static_cast<int>(types.size()) != m.num_layers)
      throw ConfigError(top.name("layer_types"), "must have num_hidden_layers (" + std::to_string(m.num_layers) +
                                                     ") entries (got " + std::to_string(types.size()) + ")");
  } else if (top.has("rope_local_base_freq")) {
    const char* pat = top.has("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern";
    if (!top.has(pat) || m.num_layers == 0)
      throw ConfigError(top.name("rope_local_base_freq"),
                        "needs layer_types, or sliding_window_pattern and num_hidden_layers, to say which layers are "
                        "local");
    const int n = static_cast<int>(top.integer(pat, 1, 1 << 16));
    for (int i = 0; i < m.num_layers; ++i) types.push_back((i + 1) % n ? "sliding_attention" : "full_attention");
  }
  return types;
}

// Per layer, whether it has no RoPE: no_rope_layers (1 = RoPE, 0 = NoPE),
// or Llama 4's default of a NoPE layer every no_rope_layer_interval layers
// (transformers models/llama4/configuration_llama4.py, __post_init__).
std::vector<char> nope_layers_of(const json& cfg, const JsonReader& top, const ModelRope& m) {
  std::vector<char> nope(static_cast<std::size_t>(m.num_layers), 0);
  const bool llama4 = m.model_type == "llama4" || m.model_type == "llama4_text";
  if (top.has("no_rope_layers") && !cfg.at("no_rope_layers").empty()) {
    const json& nr = cfg.at("no_rope_layers");
    if (!nr.is_array()) throw ConfigError(top.name("no_rope_layers"), "must be an array of 0 and 1");
    if (m.num_layers == 0) throw ConfigError(top.name("num_hidden_layers"), "missing (no_rope_layers needs it)");
    if (nr.size() < nope.size())
      throw ConfigError(top.name("no_rope_layers"), "must have at least num_hidden_layers entries");
    for (std::size_t i = 0; i < nope.size(); ++i) {
      if (!nr[i].is_number_integer() || (nr[i].get<std::int64_t>() != 0 && nr[i].get<std::int64_t>() != 1))
        throw ConfigError(top.name("no_rope_layers") + "[" + std::to_string(i) + "]", "must be 0 or 1");
      nope[i] = nr[i].get<std::int64_t>() == 0;
    }
  } else if (llama4 || top.has("no_rope_layer_interval")) {
    const int interval =
        top.has("no_rope_layer_interval") ? static_cast<int>(top.integer("no_rope_layer_interval", 1, 1 << 16)) : 4;
    if (m.num_layers == 0) throw ConfigError(top.name("num_hidden_layers"), "missing (the NoPE interval needs it)");
    for (int i = 0; i < m.num_layers; ++i) nope[static_cast<std::size_t>(i)] = (i + 1) % interval == 0;
  }
  return nope;
}

// The rope of each layer type: a rope_parameters dict keyed by layer type
// (`keyed`), else one shared rope (and Gemma 3's local layers' own).
struct LayerTypeRopes {
  std::map<std::string, RopeConfig> by_type;
  std::vector<std::string> type_order;  // the keyed dict's order
  RopeConfig shared;
  bool keyed = false;
  const RopeConfig& of(const std::string& t) const {
    const auto it = by_type.find(t);
    return it != by_type.end() ? it->second : shared;
  }
};

LayerTypeRopes layer_type_ropes(const json& cfg, const std::string& prefix, const JsonReader& top,
                                const std::vector<std::string>& types) {
  std::string dict_path;
  const json* dict = detail::rope_dict_of(cfg, prefix, &dict_path);
  LayerTypeRopes r;
  r.keyed = dict && per_layer_type(*dict);
  if (r.keyed) {
    for (const auto& [t, d] : dict->items()) {
      r.by_type[t] = detail::read_hf_rope(cfg, prefix, &d, dict_path + t + ".");
      r.type_order.push_back(t);
    }
    for (std::size_t i = 0; i < types.size(); ++i)
      if (!r.by_type.count(types[i]))
        throw ConfigError(dict_path + types[i], "missing (layer " + std::to_string(i) + " has this layer type)");
    for (const std::string& t : r.type_order)
      if (!types.empty() && std::find(types.begin(), types.end(), t) == types.end())
        throw ConfigError(dict_path + key_name(t), "no layer in layer_types has this type");
    return r;
  }
  r.shared = detail::read_hf_rope(cfg, prefix, dict, dict_path);
  if (top.has("rope_local_base_freq")) {
    // Gemma 3's local layers: the default scheme on rope_local_base_freq,
    // no scaling (transformers models/gemma3/modeling_gemma3.py builds
    // rotary_emb_local with rope_theta = rope_local_base_freq and
    // rope_scaling = {"rope_type": "default"}).
    RopeConfig local = r.shared;
    local.freq = ref::FreqSpec{};
    local.freq.base = top.number("rope_local_base_freq");
    r.by_type["sliding_attention"] = local;
  }
  return r;
}

// Layer `layer` (-1: a type no layer list names) of type `name` has rope
// c: joins the layer type with the same rope, else starts one.
void add_layer(ModelRope& m, const std::string& name, const RopeConfig& c, int layer) {
  for (LayerTypeRope& e : m.layer_types) {
    if (!same_rope(e.config, c)) continue;
    if (!names_include(e.name, name)) e.name += "+" + name;
    if (layer >= 0) e.layers.push_back(layer);
    return;
  }
  m.layer_types.push_back({name, c, layer >= 0 ? std::vector<int>{layer} : std::vector<int>{}});
}

ModelRope parse_hf_model(const json& root) {
  ModelRope m;
  std::string prefix;
  const json& cfg = language_part(root, &prefix, m);
  const JsonReader top(cfg, prefix);
  read_model_fields(root, cfg, top, prefix, m);
  const std::vector<std::string> types = layer_type_names(cfg, top, m);
  const std::vector<char> nope = nope_layers_of(cfg, top, m);
  const LayerTypeRopes ropes = layer_type_ropes(cfg, prefix, top, types);
  if (m.num_layers > 0 && (!types.empty() || std::count(nope.begin(), nope.end(), 1) > 0 || !ropes.keyed)) {
    for (int i = 0; i < m.num_layers; ++i) {
      if (nope[static_cast<std::size_t>(i)]) {
        m.nope_layers.push_back(i);
        continue;
      }
      const std::string t = types.empty() ? "all" : types[static_cast<std::size_t>(i)];
      add_layer(m, t, types.empty() ? ropes.shared : ropes.of(t), i);
    }
    if (m.layer_types.empty()) throw ConfigError(top.name("no_rope_layers"), "leaves no layer with RoPE");
  } else if (ropes.keyed) {
    for (const std::string& t : ropes.type_order) add_layer(m, t, ropes.by_type.at(t), -1);
  } else {
    add_layer(m, "all", ropes.shared, -1);
  }
  return m;
}

}  // namespace

ModelRope parse_model_rope(std::string_view text) {
  if (text.size() > kMaxConfigBytes)
    throw ConfigError("json", "must be at most " + std::to_string(kMaxConfigBytes) + " bytes (got " +
                                  std::to_string(text.size()) + ")");
  // Duplicate keys, NUL bytes, trailing bytes and deep nesting are refused.
  const json j = parse_json_strictly(text);
  if (!j.is_object()) throw ConfigError("json", "must be an object");
  ModelRope m;
  try {
    if (j.contains("ropecheck_config")) m.layer_types.push_back({"all", detail::read_own_schema(j), {}});
    else m = parse_hf_model(j);
  } catch (const json::exception& e) {
    throw ConfigError("json", std::string("unexpected value: ") + e.what());
  }
  for (const LayerTypeRope& t : m.layer_types) ref::validate(t.config.freq, t.config.shape);
  std::sort(m.ignored.begin(), m.ignored.end());
  return m;
}

ModelRope read_model_rope_file(const std::string& path) {
  ReadLimits lim;
  lim.max_bytes = kMaxConfigBytes;
  return parse_model_rope(read_file_bounded(path, lim));
}

std::vector<RopeConfig> config_variants(const ModelRope& m) {
  std::vector<RopeConfig> out;
  for (const LayerTypeRope& t : m.layer_types) {
    const ref::FreqSpec& f = t.config.freq;
    const std::int64_t L = f.original_max_position;
    const bool switches = f.scheme == ROPECHECK_SCHEME_LONGROPE || f.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK;
    if (!switches || L < 1 || f.seq_len != 0) {
      out.push_back(t.config);
      continue;
    }
    std::vector<std::int64_t> lengths = {L - 1, L, L + 1};
    if (m.max_position > L + 1) lengths.push_back(m.max_position);
    for (std::int64_t s : lengths) {
      if (s < 1) continue;
      RopeConfig c = t.config;
      c.freq.seq_len = s;
      out.push_back(c);
    }
  }
  return out;
}

std::string describe_model_rope(const ModelRope& m) {
  std::string s;
  for (const LayerTypeRope& t : m.layer_types) {
    const RopeConfig& c = t.config;
    s += t.name + ": " + c.freq.describe() + ", head_dim " + std::to_string(c.shape.head_dim) + ", rotary_dim " +
         std::to_string(c.shape.rotary_dim);
    if (c.layout) {
      s += ", ";
      s += layout_name(*c.layout);
    }
    if (c.axes.multi()) s += ", M-RoPE " + c.axes.describe();
    if (!t.layers.empty()) s += ", layers " + layer_ranges(t.layers);
    s += "\n";
  }
  if (!m.nope_layers.empty()) s += "no RoPE: layers " + layer_ranges(m.nope_layers) + "\n";
  return s;
}

}  // namespace ropecheck
