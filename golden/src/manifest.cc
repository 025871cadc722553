#include "ropecheck/golden/manifest.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ropecheck/dtype.h"
#include "ropecheck/golden/catalog.h"
#include "ropecheck/golden/sha256.h"

namespace ropecheck::golden {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
constexpr const char* kManifest = "manifest.json";

// Documents the tensors of a case once, in the manifest itself.
ordered_json tensor_conventions() {
  return {
      {"q", "inputs [tokens, q_heads, head_dim] in the case dtype (bf16 as uint16 bits in npy)"},
      {"k", "inputs [tokens, kv_heads, head_dim]"},
      {"positions", "position ids [tokens], int64"},
      {"q_expected", "exact result correctly rounded (nearest-even) to the case dtype; pass-through channels = input"},
      {"k_expected", "as q_expected"},
      {"q_expected_f64", "exact result rounded to float64"},
      {"k_expected_f64", "as q_expected_f64"},
      {"inv_freq", "exact frequencies w_i [rotary_dim / 2] rounded to float64 (after the scheme's scaling)"},
      {"angle", "exact p * w_i [tokens, rotary_dim / 2] rounded to float64"},
      {"cos", "exact cos(p * w_i) [tokens, rotary_dim / 2] rounded to float64, without the attention factor"},
      {"sin", "as cos"},
      {"q_budget_<policy>", "allowed |result - q_expected_f64| per element for an implementation with that "
                            "precision policy (docs/ERROR_MODEL.md); 0 on pass-through channels, which must be "
                            "bit-identical to the input"},
      {"k_budget_<policy>", "as q_budget_<policy>"},
      {"rotation", "pair i of a head is (x[i], x[i + rotary_dim/2]) for half_split and (x[2i], x[2i+1]) for "
                   "interleaved; forward: (x cos a - y sin a, x sin a + y cos a) * attention_factor; inverse "
                   "uses -a"},
  };
}

[[noreturn]] void bad(const std::string& file, const std::string& path, const std::string& what) {
  throw FormatError(file, path, what);
}

const json& field(const json& o, const char* key, const std::string& file, const std::string& path) {
  if (!o.is_object() || !o.contains(key)) bad(file, path + "." + key, "missing");
  return o.at(key);
}
std::string str(const json& o, const char* key, const std::string& file, const std::string& path) {
  const json& v = field(o, key, file, path);
  if (!v.is_string()) bad(file, path + "." + key, "must be a string");
  return v.get<std::string>();
}
std::int64_t integer(const json& o, const char* key, std::int64_t lo, std::int64_t hi, const std::string& file,
                     const std::string& path) {
  const json& v = field(o, key, file, path);
  if (!v.is_number_integer()) bad(file, path + "." + key, "must be an integer");
  const std::int64_t x = v.get<std::int64_t>();
  if (x < lo || x > hi)
    bad(file, path + "." + key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got " +
                                    std::to_string(x) + ")");
  return x;
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

const char* format_name(Format f) {
  switch (f) {
    case Format::kNpy: return "npy";
    case Format::kJson: return "json";
    default: return "safetensors";
  }
}

TensorDtype storage_tensor_dtype(ropecheck_dtype_t t) {
  switch (t) {
    case ROPECHECK_DTYPE_F16: return TensorDtype::kF16;
    case ROPECHECK_DTYPE_BF16: return TensorDtype::kBF16;
    case ROPECHECK_DTYPE_F64: return TensorDtype::kF64;
    default: return TensorDtype::kF32;
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
  ordered_json policies = ordered_json::object();
  for (const auto& p : budget_policies()) {
    policies[p.name] = {{"description", p.description},
                        {"freqDtype", dtype_name(static_cast<ropecheck_dtype_t>(p.policy.freq_dtype))},
                        {"angle", p.policy.angle_mode == ROPECHECK_ANGLE_F64 ? "f64 product" : "f32 product"},
                        {"sincos", "libm"},
                        {"mathDtype", dtype_name(static_cast<ropecheck_dtype_t>(p.policy.math_dtype))},
                        {"cosSinDtype", dtype_name(static_cast<ropecheck_dtype_t>(p.policy.cache_dtype))}};
  }
  ordered_json cases = ordered_json::array();
  for (const CaseEntry& e : m.cases) {
    ordered_json files = ordered_json::array();
    for (const auto& f : e.files) files.push_back({{"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}});
    ordered_json c = {{"id", e.id},
              {"name", e.name},
              {"comment", e.comment},
              {"flags", e.flags},
              {"config", ordered_json::parse(to_json(e.config))},
              {"dtype", dtype_name(e.dtype)},
              {"direction", e.direction == ROPECHECK_DIRECTION_INVERSE ? "inverse" : "forward"},
              {"tokens", e.tokens},
              {"qHeads", e.q_heads},
              {"kvHeads", e.kv_heads},
              {"attentionFactor", e.attention_factor},
              {"attentionFactorHex", format_hex_float(e.attention_factor)},
              {"files", files}};
    if (!e.model.empty()) c["model"] = e.model;
    cases.push_back(c);
  }
  const ordered_json doc = {{"schema", kManifestSchemaName},
                    {"schemaVersion", kManifestSchemaVersion},
                    {"generator", m.generator},
                    {"referencePrecisionBits", m.reference_bits},
                    {"suite", m.suite},
                    {"format", format_name(m.format)},
                    {"numberOfCases", m.cases.size()},
                    {"tensors", tensor_conventions()},
                    {"flags", flags},
                    {"policies", policies},
                    {"cases", cases}};
  return doc.dump(1) + "\n";
}

Manifest parse_manifest_checked(std::string_view text, const std::string& file);

Manifest parse_manifest(std::string_view text, const std::string& file) {
  try {
    return parse_manifest_checked(text, file);
  } catch (const json::exception& e) {  // a type no check above anticipated
    throw FormatError(file, "document", std::string("unexpected value: ") + e.what());
  }
}

Manifest parse_manifest_checked(std::string_view text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    bad(file, "document", std::string("not valid JSON (truncated file?): ") + e.what());
  }
  if (!doc.is_object()) bad(file, "document", "must be a JSON object");
  Manifest m;
  if (str(doc, "schema", file, "$") != kManifestSchemaName)
    bad(file, "$.schema", std::string("must be \"") + kManifestSchemaName + "\"");
  integer(doc, "schemaVersion", kManifestSchemaVersion, kManifestSchemaVersion, file, "$");
  m.generator = str(doc, "generator", file, "$");
  m.reference_bits = static_cast<int>(integer(doc, "referencePrecisionBits", 64, 100000, file, "$"));
  m.suite = str(doc, "suite", file, "$");
  if (!parse_format(str(doc, "format", file, "$"), &m.format)) bad(file, "$.format", "must be safetensors, npy or json");
  const json& cases = field(doc, "cases", file, "$");
  if (!cases.is_array()) bad(file, "$.cases", "must be an array");
  if (integer(doc, "numberOfCases", 0, 1 << 20, file, "$") != static_cast<std::int64_t>(cases.size()))
    bad(file, "$.numberOfCases", "does not match the length of cases");
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const std::string p = "$.cases[" + std::to_string(k) + "]";
    const json& c = cases[k];
    CaseEntry e;
    e.id = static_cast<int>(integer(c, "id", 1, 1 << 20, file, p));
    e.name = str(c, "name", file, p);
    e.comment = str(c, "comment", file, p);
    if (c.contains("model")) e.model = str(c, "model", file, p);
    const json& flags = field(c, "flags", file, p);
    if (!flags.is_array()) bad(file, p + ".flags", "must be an array");
    for (const auto& f : flags) {
      if (!f.is_string() || !find_flag(f.get<std::string>())) bad(file, p + ".flags", "unknown flag " + f.dump());
      e.flags.push_back(f.get<std::string>());
    }
    try {
      e.config = parse_rope_config(field(c, "config", file, p).dump());
    } catch (const ref::ConfigError& err) {
      bad(file, p + ".config." + err.field(), err.what());
    }
    if (!e.config.layout) bad(file, p + ".config.layout", "missing");
    if (!parse_dtype(str(c, "dtype", file, p), &e.dtype)) bad(file, p + ".dtype", "must be f32, f16, bf16 or f64");
    const std::string dir = str(c, "direction", file, p);
    if (dir != "forward" && dir != "inverse") bad(file, p + ".direction", "must be forward or inverse");
    e.direction = dir == "inverse" ? ROPECHECK_DIRECTION_INVERSE : ROPECHECK_DIRECTION_FORWARD;
    e.tokens = integer(c, "tokens", 1, 1 << 20, file, p);
    e.q_heads = static_cast<int>(integer(c, "qHeads", 1, 4096, file, p));
    e.kv_heads = static_cast<int>(integer(c, "kvHeads", 1, 4096, file, p));
    if (e.q_heads % e.kv_heads) bad(file, p + ".qHeads", "must be a multiple of kvHeads");
    if (!parse_hex_float(str(c, "attentionFactorHex", file, p), &e.attention_factor) ||
        !(e.attention_factor > 0) || !std::isfinite(e.attention_factor))
      bad(file, p + ".attentionFactorHex", "must be a positive finite hex float");
    const json& files = field(c, "files", file, p);
    if (!files.is_array() || files.empty()) bad(file, p + ".files", "must be a non-empty array");
    for (std::size_t i = 0; i < files.size(); ++i) {
      const std::string fp = p + ".files[" + std::to_string(i) + "]";
      FileEntry f;
      f.path = str(files[i], "path", file, fp);
      if (!safe_relative_path(f.path)) bad(file, fp + ".path", "must be a relative path inside the export");
      f.sha256 = str(files[i], "sha256", file, fp);
      if (f.sha256.size() != 64 || f.sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
        bad(file, fp + ".sha256", "must be 64 lowercase hex digits");
      f.bytes = static_cast<std::uint64_t>(integer(files[i], "bytes", 0, std::int64_t{1} << 40, file, fp));
      e.files.push_back(f);
    }
    m.cases.push_back(std::move(e));
  }
  return m;
}

std::string read_export_file(const std::string& dir, const std::string& relative) {
  const std::string path = (std::filesystem::path(dir) / relative).string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path, "file", "cannot be opened (missing from the export?)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Manifest load_manifest(const std::string& dir) {
  const std::string text = read_export_file(dir, kManifest);
  const std::string mpath = (std::filesystem::path(dir) / kManifest).string();
  if (std::filesystem::exists(std::filesystem::path(dir) / "SHA256SUMS")) {
    const std::string sums = read_export_file(dir, "SHA256SUMS");
    std::istringstream ls(sums);
    std::string line;
    bool listed = false;
    while (std::getline(ls, line)) {
      if (line.size() > 66 && line.substr(66) == kManifest) {
        listed = true;
        if (line.substr(0, 64) != sha256_hex(text))
          throw FormatError(mpath, "sha256", "does not match SHA256SUMS (altered or truncated file)");
      }
    }
    if (!listed) throw FormatError(mpath, "SHA256SUMS", "does not list manifest.json");
  }
  return parse_manifest(text, mpath);
}

std::vector<Tensor> load_case_tensors(const std::string& dir, const Manifest& m, const CaseEntry& e) {
  std::vector<Tensor> out;
  for (const FileEntry& f : e.files) {
    const std::string path = (std::filesystem::path(dir) / f.path).string();
    const std::string data = read_export_file(dir, f.path);
    if (data.size() != f.bytes)
      throw FormatError(path, "bytes", std::to_string(data.size()) + " bytes where the manifest records " +
                                           std::to_string(f.bytes) + (data.size() < f.bytes ? " (truncated file)" : ""));
    if (sha256_hex(data) != f.sha256)
      throw FormatError(path, "sha256", "does not match the manifest (altered file)");
    switch (m.format) {
      case Format::kSafetensors: {
        auto t = read_safetensors(data, path);
        out.insert(out.end(), std::make_move_iterator(t.begin()), std::make_move_iterator(t.end()));
        break;
      }
      case Format::kJson: {
        auto t = read_hex_json(data, path);
        out.insert(out.end(), std::make_move_iterator(t.begin()), std::make_move_iterator(t.end()));
        break;
      }
      case Format::kNpy:
        out.push_back(read_npy(data, path, std::filesystem::path(f.path).stem().string()));
        break;
    }
  }
  return out;
}

}  // namespace ropecheck::golden
