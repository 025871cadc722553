#include "ropecheck/golden/tensor_file.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "ropecheck/dtype.h"

namespace ropecheck::golden {
namespace {

using nlohmann::json;

// Largest element count of one tensor a reader accepts (shape products are
// checked against it before any multiplication can overflow).
constexpr std::int64_t kMaxElements = std::int64_t{1} << 34;

struct DtypeNames {
  TensorDtype t;
  const char* ours;
  const char* safetensors;
  const char* npy;
};
constexpr DtypeNames kNames[] = {
    {TensorDtype::kF64, "f64", "F64", "<f8"},  {TensorDtype::kF32, "f32", "F32", "<f4"},
    {TensorDtype::kF16, "f16", "F16", "<f2"},  {TensorDtype::kBF16, "bf16", "BF16", "<u2"},
    {TensorDtype::kI64, "i64", "I64", "<i8"},
};

const DtypeNames& names_of(TensorDtype t) {
  for (const auto& n : kNames)
    if (n.t == t) return n;
  return kNames[0];
}

template <class Pick>
bool dtype_from(std::string_view s, TensorDtype* out, Pick pick) {
  for (const auto& n : kNames)
    if (s == pick(n)) {
      *out = n.t;
      return true;
    }
  return false;
}

std::int64_t checked_elements(const std::vector<std::int64_t>& shape, const std::string& file,
                              const std::string& field) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0 || d > kMaxElements) throw FormatError(file, field, "dimension out of [0, 2^34]");
    if (d != 0 && n > kMaxElements / d) throw FormatError(file, field, "more than 2^34 elements");
    n *= d;
  }
  return n;
}

void put_u64le(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_le(std::string_view d, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t{static_cast<unsigned char>(d[at + i])} << (8 * i);
  return v;
}

}  // namespace

std::size_t tensor_dtype_size(TensorDtype t) {
  switch (t) {
    case TensorDtype::kF16:
    case TensorDtype::kBF16:
      return 2;
    case TensorDtype::kF32:
      return 4;
    default:
      return 8;
  }
}

const char* tensor_dtype_name(TensorDtype t) { return names_of(t).ours; }

std::int64_t Tensor::elements() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

double Tensor::value(std::int64_t i) const {
  const unsigned char* p = bytes.data() + static_cast<std::size_t>(i) * tensor_dtype_size(dtype);
  switch (dtype) {
    case TensorDtype::kF64:
      return load_as_double(p, 0, ROPECHECK_DTYPE_F64);
    case TensorDtype::kF32:
      return load_as_double(p, 0, ROPECHECK_DTYPE_F32);
    case TensorDtype::kF16:
      return load_as_double(p, 0, ROPECHECK_DTYPE_F16);
    case TensorDtype::kBF16:
      return load_as_double(p, 0, ROPECHECK_DTYPE_BF16);
    case TensorDtype::kI64:
      return static_cast<double>(int_value(i));
  }
  return 0;
}

std::int64_t Tensor::int_value(std::int64_t i) const {
  std::int64_t v = 0;
  std::memcpy(&v, bytes.data() + static_cast<std::size_t>(i) * 8, 8);
  return v;
}

// --- safetensors -------------------------------------------------------------
// Layout (huggingface/safetensors, "Format"): u64 little-endian header size
// N, N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}} with
// optional "__metadata__", then the byte buffer the offsets index, covered
// without holes. We pad the header with spaces to an 8-byte boundary.

std::string write_safetensors(const std::vector<Tensor>& tensors) {
  json header = json::object();
  std::uint64_t at = 0;
  for (const auto& t : tensors) {
    header[t.name] = {{"dtype", names_of(t.dtype).safetensors},
                      {"shape", t.shape},
                      {"data_offsets", {at, at + t.bytes.size()}}};
    at += t.bytes.size();
  }
  std::string h = header.dump();
  while ((8 + h.size()) % 8) h.push_back(' ');
  std::string out;
  out.reserve(8 + h.size() + at);
  put_u64le(out, h.size());
  out += h;
  for (const auto& t : tensors) out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return out;
}

std::vector<Tensor> read_safetensors(std::string_view data, const std::string& file) {
  if (data.size() < 8) throw FormatError(file, "header size", "file is " + std::to_string(data.size()) + " bytes, shorter than the 8-byte header size");
  if (data.size() > kMaxTensorFileBytes) throw FormatError(file, "size", "larger than 1 GiB");
  const std::uint64_t n = get_le(data, 0, 8);
  if (n > data.size() - 8)
    throw FormatError(file, "header size", std::to_string(n) + " exceeds the " + std::to_string(data.size() - 8) + " bytes after it (truncated file?)");
  json header;
  try {
    header = json::parse(data.substr(8, n));
  } catch (const json::exception& e) {
    throw FormatError(file, "header", std::string("not valid JSON: ") + e.what());
  }
  if (!header.is_object()) throw FormatError(file, "header", "must be a JSON object");
  const std::string_view buffer = data.substr(8 + n);
  std::vector<std::pair<std::uint64_t, Tensor>> found;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::string field = "tensor '" + it.key() + "'";
    const json& e = it.value();
    if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
      throw FormatError(file, field, "needs dtype, shape and data_offsets");
    Tensor t;
    t.name = it.key();
    if (!e["dtype"].is_string() ||
        !dtype_from(e["dtype"].get<std::string>(), &t.dtype, [](const DtypeNames& x) { return x.safetensors; }))
      throw FormatError(file, field + ".dtype", "must be one of F64, F32, F16, BF16, I64");
    if (!e["shape"].is_array() || e["shape"].size() > 8)
      throw FormatError(file, field + ".shape", "must be an array of at most 8 dimensions");
    for (const auto& d : e["shape"]) {
      if (!d.is_number_integer()) throw FormatError(file, field + ".shape", "dimensions must be integers");
      t.shape.push_back(d.get<std::int64_t>());
    }
    const std::int64_t count = checked_elements(t.shape, file, field + ".shape");
    const json& off = e["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      throw FormatError(file, field + ".data_offsets", "must be two non-negative integers");
    const std::uint64_t b = off[0].get<std::uint64_t>(), end = off[1].get<std::uint64_t>();
    if (b > end || end > buffer.size())
      throw FormatError(file, field + ".data_offsets", "[" + std::to_string(b) + ", " + std::to_string(end) +
                                                           ") outside the " + std::to_string(buffer.size()) +
                                                           "-byte buffer (truncated file?)");
    if (end - b != static_cast<std::uint64_t>(count) * tensor_dtype_size(t.dtype))
      throw FormatError(file, field + ".data_offsets", "span of " + std::to_string(end - b) +
                                                           " bytes does not match shape x dtype size");
    t.bytes.assign(buffer.begin() + static_cast<std::ptrdiff_t>(b), buffer.begin() + static_cast<std::ptrdiff_t>(end));
    found.emplace_back(b, std::move(t));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::uint64_t expect = 0;
  std::vector<Tensor> out;
  for (auto& [b, t] : found) {
    if (b != expect) throw FormatError(file, "tensor '" + t.name + "'.data_offsets", "overlaps or leaves a hole in the buffer");
    expect += t.bytes.size();
    out.push_back(std::move(t));
  }
  if (expect != buffer.size())
    throw FormatError(file, "buffer", std::to_string(buffer.size() - expect) + " trailing bytes no tensor covers");
  return out;
}

// --- npy ----------------------------------------------------------------------
// numpy's format (numpy.lib.format, version 1.0): "\x93NUMPY", major, minor,
// u16 header length, then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces and a newline so the data starts on a 64-byte boundary.

std::string write_npy(const Tensor& t) {
  std::string shape = "(";
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape += std::to_string(t.shape[i]) + (i + 1 < t.shape.size() || t.shape.size() == 1 ? ", " : "");
  if (t.shape.size() == 1) shape.pop_back();
  shape += ")";
  std::string dict = "{'descr': '" + std::string(names_of(t.dtype).npy) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>(dict.size() >> 8));
  out += dict;
  out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return out;
}

namespace {

// A strict reader of the dict literal numpy writes: string keys, and values
// that are strings, True/False, or tuples of integers.
class NpyHeader {
 public:
  NpyHeader(std::string_view s, const std::string& file) : s_(s), file_(file) {}
  void parse(std::string* descr, bool* fortran, std::vector<std::int64_t>* shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') break;
      const std::string key = quoted();
      skip();
      expect(':');
      skip();
      if (key == "descr") {
        *descr = quoted();
        have_descr = true;
      } else if (key == "fortran_order") {
        *fortran = word();
        have_fortran = true;
      } else if (key == "shape") {
        *shape = tuple();
        have_shape = true;
      } else {
        throw FormatError(file_, "header", "unknown key '" + key + "'");
      }
      skip();
      if (peek() == ',') ++i_;
    }
    ++i_;
    for (; i_ < s_.size(); ++i_)
      if (s_[i_] != ' ' && s_[i_] != '\n') throw FormatError(file_, "header", "text after the dict");
    if (!have_descr || !have_fortran || !have_shape)
      throw FormatError(file_, "header", "needs descr, fortran_order and shape");
  }

 private:
  char peek() const {
    if (i_ >= s_.size()) throw FormatError(file_, "header", "ends early");
    return s_[i_];
  }
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  void expect(char c) {
    if (peek() != c) throw FormatError(file_, "header", std::string("expected '") + c + "'");
    ++i_;
  }
  std::string quoted() {
    expect('\'');
    const std::size_t end = s_.find('\'', i_);
    if (end == std::string_view::npos || end - i_ > 64) throw FormatError(file_, "header", "unterminated string");
    std::string v(s_.substr(i_, end - i_));
    i_ = end + 1;
    return v;
  }
  bool word() {
    if (s_.substr(i_, 4) == "True") return i_ += 4, true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, false;
    throw FormatError(file_, "header.fortran_order", "must be True or False");
  }
  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> v;
    expect('(');
    while (true) {
      skip();
      if (peek() == ')') break;
      std::int64_t d = 0;
      int digits = 0;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        if (++digits > 12) throw FormatError(file_, "header.shape", "dimension too large");
        d = d * 10 + (s_[i_++] - '0');
      }
      if (!digits) throw FormatError(file_, "header.shape", "dimensions must be non-negative integers");
      v.push_back(d);
      if (v.size() > 8) throw FormatError(file_, "header.shape", "more than 8 dimensions");
      skip();
      if (peek() == ',') ++i_;
    }
    ++i_;
    return v;
  }
  std::string_view s_;
  const std::string& file_;
  std::size_t i_ = 0;
};

}  // namespace

Tensor read_npy(std::string_view data, const std::string& file, const std::string& name) {
  if (data.size() > kMaxTensorFileBytes) throw FormatError(file, "size", "larger than 1 GiB");
  if (data.size() < 10 || data.substr(0, 6) != "\x93NUMPY") throw FormatError(file, "magic", "not an npy file");
  const int major = static_cast<unsigned char>(data[6]);
  std::size_t hlen = 0, start = 0;
  if (major == 1) {
    hlen = get_le(data, 8, 2);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) throw FormatError(file, "header length", "file ends early");
    hlen = get_le(data, 8, 4);
    start = 12;
  } else {
    throw FormatError(file, "version", "must be 1, 2 or 3 (got " + std::to_string(major) + ")");
  }
  if (hlen > data.size() - start) throw FormatError(file, "header length", "exceeds the file (truncated file?)");
  std::string descr;
  bool fortran = false;
  Tensor t;
  t.name = name;
  NpyHeader(data.substr(start, hlen), file).parse(&descr, &fortran, &t.shape);
  if (fortran) throw FormatError(file, "header.fortran_order", "must be False");
  if (!dtype_from(descr, &t.dtype, [](const DtypeNames& x) { return x.npy; }))
    throw FormatError(file, "header.descr", "must be one of <f8, <f4, <f2, <u2 (bf16 bits), <i8 (got '" + descr + "')");
  const std::int64_t count = checked_elements(t.shape, file, "header.shape");
  const std::size_t want = static_cast<std::size_t>(count) * tensor_dtype_size(t.dtype);
  const std::size_t have = data.size() - start - hlen;
  if (have != want)
    throw FormatError(file, "data", std::to_string(have) + " bytes where the shape needs " + std::to_string(want) +
                                        (have < want ? " (truncated file?)" : ""));
  t.bytes.assign(data.begin() + static_cast<std::ptrdiff_t>(start + hlen), data.end());
  return t;
}

// --- hex JSON -----------------------------------------------------------------

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

std::string write_hex_json(const std::vector<Tensor>& tensors) {
  json doc = {{"format", "ropecheck-hex-json"}, {"version", 1}, {"tensors", json::array()}};
  for (const auto& t : tensors) {
    json values = json::array();
    for (std::int64_t i = 0; i < t.elements(); ++i) {
      if (t.dtype == TensorDtype::kI64) {
        values.push_back(t.int_value(i));
      } else {
        values.push_back(format_hex_float(t.value(i)));
      }
    }
    doc["tensors"].push_back({{"name", t.name}, {"dtype", tensor_dtype_name(t.dtype)}, {"shape", t.shape}, {"values", values}});
  }
  return doc.dump(1) + "\n";
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
      return false;
  }
  const double back = t.value(i);
  return std::memcmp(&back, &v, 8) == 0;
}

}  // namespace

std::vector<Tensor> read_hex_json(std::string_view data, const std::string& file) {
  if (data.size() > kMaxTensorFileBytes) throw FormatError(file, "size", "larger than 1 GiB");
  json doc;
  try {
    doc = json::parse(data);
  } catch (const json::exception& e) {
    throw FormatError(file, "document", std::string("not valid JSON (truncated file?): ") + e.what());
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
    if (!dtype_from(e["dtype"].get<std::string>(), &t.dtype, [](const DtypeNames& x) { return x.ours; }))
      throw FormatError(file, field + ".dtype", "must be one of f64, f32, f16, bf16, i64");
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
      double x = 0;
      if (!v.is_string() || !parse_hex_float(v.get<std::string>(), &x))
        throw FormatError(file, vf, "must be a hex float string such as \"0x1.8p+1\"");
      if (!store_exact(t, i, x))
        throw FormatError(file, vf, "not exactly representable in " + std::string(tensor_dtype_name(t.dtype)));
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace ropecheck::golden
