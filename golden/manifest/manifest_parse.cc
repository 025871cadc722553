// SPDX-License-Identifier: MIT
// manifest.json of a golden export, read back and never trusted: every field
// checked against its bound, every file path inside the export, no case or
// file listed twice (parse_manifest, golden/manifest/manifest.h).
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
