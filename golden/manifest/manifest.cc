// SPDX-License-Identifier: MIT
// manifest.json of a golden export: the definitions of golden/manifest/manifest.h.
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

// Relative, inside the export: no absolute paths, no "..", no odd characters.
bool safe_relative_path(const std::string& p) {
  if (p.empty() || p.size() > 200 || p[0] == '/') return false;
  for (char c : p)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' || c == '.')) return false;
  std::stringstream ss(p);
  std::string part;
  while (std::getline(ss, part, '/'))
    if (part.empty() || part == "." || part == "..") return false;
  return true;
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

Manifest parse_manifest_checked(std::string_view text, const std::string& file);

Manifest parse_manifest(std::string_view text, const std::string& file) {
  try {
    return parse_manifest_checked(text, file);
  } catch (const ref::ConfigError& e) {  // a field read through JsonReader
    throw FormatError(file, e.field(), e.message());
  } catch (const json::exception& e) {  // a type no check above anticipated
    throw FormatError(file, "document", std::string("unexpected value: ") + e.what());
  }
}

namespace {

// A case's kvWrite (schema 4 on), qkNorm or cosSinCache (schema 5 on):
// at most one, and none beside axes.
void parse_fused_parts(const JsonReader& c, int version, const std::string& file, const std::string& p,
                       CaseEntry* out) {
  CaseEntry& e = *out;
  if (c.has("kvWrite")) {
    if (version < 4)
      bad(file, p + ".kvWrite", "a KV-cache write needs schemaVersion 4 (this manifest states " +
                                    std::to_string(version) + ")");
    if (e.axes.multi()) bad(file, p + ".kvWrite", "a case with a KV-cache write has one position axis");
    Case shape;
    shape.tokens = e.tokens;
    shape.q_heads = e.q_heads;
    shape.kv_heads = e.kv_heads;
    shape.shape = e.config.shape;
    e.kv_write = parse_kv_write(c.at("kvWrite"), shape, file, p + ".kvWrite");
  }
  for (const char* key : {"qkNorm", "cosSinCache"}) {
    if (!c.has(key)) continue;
    if (version < 5)
      bad(file, p + "." + key, std::string(key[0] == 'q' ? "a qk-norm" : "the caller's cos/sin cache") +
                                   " needs schemaVersion 5 (this manifest states " + std::to_string(version) + ")");
    if (e.axes.multi() || e.kv_write || (c.has("qkNorm") && c.has("cosSinCache")))
      bad(file, p + "." + key, "a case carries at most one of kvWrite, qkNorm and cosSinCache, and no axes with it");
  }
  if (c.has("qkNorm")) {
    e.qk_norm = parse_qk_norm(c.at("qkNorm"), file, p + ".qkNorm");
    // Every element's exact norm is computed (MPFR, no sampling): bounded.
    const std::int64_t elements = e.tokens * (e.q_heads + e.kv_heads) * e.config.shape.head_dim;
    if (elements > kMaxQkNormElements)
      bad(file, p + ".qkNorm", "a qk-norm case of " + std::to_string(elements) + " q and k elements; at most " +
                                   std::to_string(kMaxQkNormElements) + " are judged");
  }
  if (c.has("cosSinCache"))
    e.cos_sin_cache = parse_cos_sin_cache(c.at("cosSinCache"), e.dtype, file, p + ".cosSinCache");
}

// A case's files: relative paths inside the export, each with its SHA-256
// and size.
std::vector<FileEntry> parse_files(const JsonReader& c, const std::string& file, const std::string& p) {
  std::vector<FileEntry> out;
  const json& files = c.at("files");
  if (!files.is_array() || files.empty()) bad(file, p + ".files", "must be a non-empty array");
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string fp = p + ".files[" + std::to_string(i) + "]";
    const JsonReader fr(files[i], fp + ".");
    FileEntry f;
    f.path = fr.string("path");
    if (!safe_relative_path(f.path)) bad(file, fp + ".path", "must be a relative path inside the export");
    f.sha256 = fr.string("sha256");
    if (f.sha256.size() != 64 || f.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
      bad(file, fp + ".sha256", "must be 64 lowercase hex digits");
    f.bytes = static_cast<std::uint64_t>(fr.integer("bytes", 0, std::int64_t{1} << 40));
    out.push_back(f);
  }
  return out;
}

// One entry of $.cases, at JSON path p, in a manifest of schema `version`.
CaseEntry parse_case(const json& j, int version, const std::string& file, const std::string& p) {
  const JsonReader c(j, p + ".");
  if (!j.is_object()) bad(file, p, "must be an object");
  CaseEntry e;
  e.id = static_cast<int>(c.integer("id", 1, 1 << 20));
  e.name = c.string("name");
  e.comment = c.string("comment");
  if (c.has("model")) e.model = c.string("model");
  const json& flags = c.at("flags");
  if (!flags.is_array()) bad(file, p + ".flags", "must be an array");
  for (const auto& f : flags) {
    if (!f.is_string() || !find_flag(f.get<std::string>())) bad(file, p + ".flags", "unknown flag " + f.dump());
    e.flags.push_back(f.get<std::string>());
  }
  try {
    e.config = parse_rope_config(c.at("config").dump());
  } catch (const ref::ConfigError& err) {
    bad(file, p + ".config." + err.field(), err.what());
  }
  if (!e.config.layout) bad(file, p + ".config.layout", "missing");
  if (c.has("axes")) {
    if (version < 2)
      bad(file, p + ".axes",
          "multi-axis cases need schemaVersion 2 (this manifest states " + std::to_string(version) + ")");
    e.axes = parse_axes(c.at("axes"), e.config, file, p + ".axes");
  }
  if (c.has("outputs")) {
    if (version < 3)
      bad(file, p + ".outputs", "outputs other than the exact one need schemaVersion 3 (this manifest states " +
                                    std::to_string(version) + ")");
    e.outputs = parse_outputs(c.at("outputs"), file, p + ".outputs", c.has("kvWrite"));
  } else if (version >= 3) {
    bad(file, p + ".outputs", "missing (schemaVersion 3 lists every case's outputs, [] for none)");
  }
  if (!parse_dtype(c.string("dtype"), &e.dtype)) bad(file, p + ".dtype", "must be f32, f16, bf16 or f64");
  const std::string dir = c.string("direction");
  if (dir != "forward" && dir != "inverse") bad(file, p + ".direction", "must be forward or inverse");
  e.direction = dir == "inverse" ? ROPECHECK_DIRECTION_INVERSE : ROPECHECK_DIRECTION_FORWARD;
  e.tokens = c.integer("tokens", 1, 1 << 20);
  e.q_heads = static_cast<int>(c.integer("qHeads", 1, 4096));
  e.kv_heads = static_cast<int>(c.integer("kvHeads", 1, 4096));
  if (e.q_heads % e.kv_heads) bad(file, p + ".qHeads", "must be a multiple of kvHeads");
  parse_fused_parts(c, version, file, p, &e);
  if (!parse_hex_float(c.string("attentionFactorHex"), &e.attention_factor) || !(e.attention_factor > 0) ||
      !std::isfinite(e.attention_factor))
    bad(file, p + ".attentionFactorHex", "must be a positive finite hex float");
  e.files = parse_files(c, file, p);
  return e;
}

// A case listed twice (its id, or a file another case lists) would be
// judged twice, weighing what a forger copied over what was exported.
void check_not_repeated(const Manifest& m, const CaseEntry& e, const std::string& file, const std::string& p) {
  for (std::size_t j = 0; j < m.cases.size(); ++j) {
    const std::string q = "$.cases[" + std::to_string(j) + "]";
    if (m.cases[j].id == e.id) bad(file, p + ".id", "repeats case id " + std::to_string(e.id) + " of " + q);
    for (const FileEntry& f : e.files)
      for (const FileEntry& g : m.cases[j].files)
        if (f.path == g.path) bad(file, p + ".files", "lists " + f.path + ", which " + q + " lists too");
  }
}

// The document's fields before its cases: the schema version (a newer one
// refused first), the schema, generator, precision, suite and format.
Manifest parse_header(const JsonReader& top, const std::string& file) {
  Manifest m;
  // A version this reader does not know is refused before anything else of
  // the document is read, naming the versions it does.
  if (const json& v = top.at("schemaVersion"); v.is_number_integer() && v.get<std::int64_t>() > kManifestSchemaVersion)
    bad(file, "$.schemaVersion", "is " + v.dump() + "; this ropecheck reads versions " +
                                     std::to_string(kOldestManifestSchemaVersion) + " to " +
                                     std::to_string(kManifestSchemaVersion) + " (a newer ropecheck wrote it)");
  m.schema_version =
      static_cast<int>(top.integer("schemaVersion", kOldestManifestSchemaVersion, kManifestSchemaVersion));
  if (top.string("schema") != manifest_schema_name(m.schema_version))
    bad(file, "$.schema", "must be \"" + manifest_schema_name(m.schema_version) + "\" (schemaVersion " +
                              std::to_string(m.schema_version) + ")");
  m.generator = top.string("generator");
  m.reference_bits = static_cast<int>(top.integer("referencePrecisionBits", 64, 100000));
  m.suite = top.string("suite");
  if (!parse_format(top.string("format"), &m.format)) bad(file, "$.format", "must be safetensors, npy or json");
  return m;
}

}  // namespace

Manifest parse_manifest_checked(std::string_view text, const std::string& file) {
  json doc;
  try {
    doc = parse_json_strictly(text);
  } catch (const ref::ConfigError& e) {  // invalid or truncated JSON, a repeated key
    bad(file, e.field() == "json" ? "document" : "$." + e.field(), e.message());
  }
  if (!doc.is_object()) bad(file, "document", "must be a JSON object");
  const JsonReader top(doc, "$.");
  Manifest m = parse_header(top, file);
  const json& cases = top.at("cases");
  if (!cases.is_array()) bad(file, "$.cases", "must be an array");
  if (top.integer("numberOfCases", 0, 1 << 20) != static_cast<std::int64_t>(cases.size()))
    bad(file, "$.numberOfCases", "does not match the length of cases");
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const std::string p = "$.cases[" + std::to_string(k) + "]";
    CaseEntry e = parse_case(cases[k], m.schema_version, file, p);
    check_not_repeated(m, e, file, p);
    m.cases.push_back(std::move(e));
  }
  return m;
}

}  // namespace ropecheck::golden
