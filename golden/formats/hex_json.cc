// SPDX-License-Identifier: MIT
// JSON golden files with every value an exact C99 hex float ("inf", "-inf";
// "nan", "-nan" for a NaN of an invalid output), for languages without a
// tensor library: {"format": "ropecheck-hex-json", "version": 1,
// "tensors": [{name, dtype, shape, values}]}.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/config/json_reader.h"

#include "golden/formats/tensor_codec.h"
#include "golden/formats/tensor_file.h"
#include "ropecheck/dtype.h"

namespace ropecheck::golden {

using namespace codec;
using nlohmann::json;

std::string format_hex_float(double v) {
  if (std::isnan(v)) throw std::invalid_argument("format_hex_float: NaN has no canonical form here");
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, 8);
  const bool neg = bits >> 63;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  std::uint64_t mant = bits & ((std::uint64_t{1} << 52) - 1);
  std::string s = neg ? "-0x" : "0x";
  if (biased == 0 && mant == 0) return s + "0p+0";
  const int lead = biased == 0 ? 0 : 1;
  const int e = biased == 0 ? -1022 : biased - 1023;
  s += static_cast<char>('0' + lead);
  std::string digits;
  static const char kHex[] = "0123456789abcdef";
  for (int i = 12; i >= 0; --i) digits.push_back(kHex[(mant >> (4 * i)) & 0xf]);
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  if (!digits.empty()) s += "." + digits;
  s += e < 0 ? "p-" : "p+";
  s += std::to_string(e < 0 ? -e : e);
  return s;
}

bool parse_hex_float(std::string_view s, double* out) {
  if (s == "inf") return *out = HUGE_VAL, true;
  if (s == "-inf") return *out = -HUGE_VAL, true;
  const std::string_view body = !s.empty() && s[0] == '-' ? s.substr(1) : s;
  if (body.size() < 4 || body.size() > 40 || body.substr(0, 2) != "0x") return false;
  for (char c : body.substr(2))
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'p' && c != '+' && c != '-') return false;
  if (body.find('p') == std::string_view::npos) return false;
  const std::string z(s);
  char* end = nullptr;
  const double v = std::strtod(z.c_str(), &end);
  if (end != z.c_str() + z.size() || std::isnan(v)) return false;
  *out = v;
  return true;
}

// One tensor a line: a value a line made the files a third larger (a
// case's outputs other than the exact one doubled their count).
std::string write_hex_json(const std::vector<Tensor>& tensors) {
  std::string out = "{\n \"format\": \"ropecheck-hex-json\",\n \"tensors\": [";
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const Tensor& t = tensors[k];
    json values = json::array();
    for (std::int64_t i = 0; i < t.elements(); ++i) {
      if (t.dtype == TensorDtype::kI64 || t.dtype == TensorDtype::kU8) {
        values.push_back(t.int_value(i));
      } else {
        // A NaN (what a wrong kernel may write: an invalid output) is "nan"
        // or "-nan", as C99's strtod and Python's float.fromhex read them:
        // its sign is kept, a payload other than the quiet bit is not.
        const double v = t.value(i);
        values.push_back(!std::isnan(v) ? format_hex_float(v) : std::signbit(v) ? "-nan" : "nan");
      }
    }
    const json one = {{"name", t.name}, {"dtype", tensor_dtype_name(t.dtype)}, {"shape", t.shape}, {"values", values}};
    out += (k ? ",\n  " : "\n  ") + one.dump();
  }
  return out + (tensors.empty() ? "],\n" : "\n ],\n") + " \"version\": 1\n}\n";
}

namespace {

// Stores v in t's dtype at element i; false when v is not exactly representable.
bool store_exact(Tensor& t, std::int64_t i, double v) {
  unsigned char* p = t.bytes.data() + static_cast<std::size_t>(i) * tensor_dtype_size(t.dtype);
  switch (t.dtype) {
    case TensorDtype::kF64:
      std::memcpy(p, &v, 8);
      return true;
    case TensorDtype::kF32: {
      if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) return false;
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      break;
    }
    case TensorDtype::kF16: {
      if (std::isfinite(v) && std::fabs(v) > 65504.0) return false;
      const std::uint16_t b = f32_to_f16(static_cast<float>(v));
      std::memcpy(p, &b, 2);
      break;
    }
    case TensorDtype::kBF16: {
      if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) return false;
      const std::uint16_t b = f32_to_bf16(static_cast<float>(v));
      std::memcpy(p, &b, 2);
      break;
    }
    case TensorDtype::kI64:
    case TensorDtype::kU8:
      return false;
  }
  const double back = t.value(i);
  return std::memcmp(&back, &v, 8) == 0 || (std::isnan(v) && std::isnan(back));
}

}  // namespace

std::vector<Tensor> read_hex_json(std::string_view data, const std::string& file) {
  if (data.size() > kMaxTensorFileBytes) throw FormatError(file, "size", "larger than 1 GiB");
  json doc;
  try {
    doc = parse_json_strictly(data);
  } catch (const ref::ConfigError& e) {  // invalid or truncated JSON, a repeated key
    throw FormatError(file, e.field() == "json" ? "document" : e.field(), e.message());
  }
  if (!doc.is_object() || doc.value("format", "") != "ropecheck-hex-json")
    throw FormatError(file, "format", "must be \"ropecheck-hex-json\"");
  if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int>() != 1)
    throw FormatError(file, "version", "must be 1");
  if (!doc.contains("tensors") || !doc["tensors"].is_array()) throw FormatError(file, "tensors", "must be an array");
  std::vector<Tensor> out;
  for (std::size_t k = 0; k < doc["tensors"].size(); ++k) {
    const json& e = doc["tensors"][k];
    const std::string field = "tensors[" + std::to_string(k) + "]";
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || !e.contains("dtype") ||
        !e["dtype"].is_string() || !e.contains("shape") || !e["shape"].is_array() || !e.contains("values") ||
        !e["values"].is_array())
      throw FormatError(file, field, "needs name, dtype, shape and values");
    Tensor t;
    t.name = e["name"].get<std::string>();
    if (!dtype_from(e["dtype"].get<std::string>(), &t.dtype, &DtypeNames::ours))
      throw FormatError(file, field + ".dtype", "must be one of f64, f32, f16, bf16, i64, u8");
    if (e["shape"].size() > 8) throw FormatError(file, field + ".shape", "more than 8 dimensions");
    for (const auto& d : e["shape"]) {
      if (!d.is_number_integer()) throw FormatError(file, field + ".shape", "dimensions must be integers");
      t.shape.push_back(d.get<std::int64_t>());
    }
    const std::int64_t count = checked_elements(t.shape, file, field + ".shape");
    if (static_cast<std::int64_t>(e["values"].size()) != count)
      throw FormatError(file, field + ".values", std::to_string(e["values"].size()) + " values where the shape needs " +
                                                     std::to_string(count));
    t.bytes.assign(static_cast<std::size_t>(count) * tensor_dtype_size(t.dtype), 0);
    for (std::int64_t i = 0; i < count; ++i) {
      const json& v = e["values"][static_cast<std::size_t>(i)];
      const std::string vf = field + ".values[" + std::to_string(i) + "]";
      if (t.dtype == TensorDtype::kI64) {
        if (!v.is_number_integer()) throw FormatError(file, vf, "must be an integer");
        const std::int64_t x = v.get<std::int64_t>();
        std::memcpy(t.bytes.data() + 8 * i, &x, 8);
        continue;
      }
      if (t.dtype == TensorDtype::kU8) {
        if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 255) throw FormatError(file, vf, "must be an integer in [0, 255]");
        t.bytes[static_cast<std::size_t>(i)] = static_cast<unsigned char>(v.get<std::uint64_t>());
        continue;
      }
      double x = 0;
      if (v.is_string() && (v.get<std::string>() == "nan" || v.get<std::string>() == "-nan"))
        x = std::copysign(std::numeric_limits<double>::quiet_NaN(), v.get<std::string>()[0] == '-' ? -1.0 : 1.0);
      else if (!v.is_string() || !parse_hex_float(v.get<std::string>(), &x))
        throw FormatError(file, vf, "must be a hex float string such as \"0x1.8p+1\" (or \"inf\", \"-inf\", \"nan\", \"-nan\")");
      if (!store_exact(t, i, x))
        throw FormatError(file, vf, "not exactly representable in " + std::string(tensor_dtype_name(t.dtype)));
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace ropecheck::golden
