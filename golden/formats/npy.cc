// SPDX-License-Identifier: MIT
// npy files of golden tensors, one tensor per file.
// numpy's format (numpy.lib.format, version 1.0): "\x93NUMPY", major, minor,
// u16 header length, then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces and a newline so the data starts on a 64-byte boundary.
#include <cstring>

#include "golden/formats/tensor_codec.h"
#include "golden/formats/tensor_file.h"

namespace ropecheck::golden {

using namespace codec;

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
  if (!dtype_from(descr, &t.dtype, &DtypeNames::npy))
    throw FormatError(file, "header.descr", "must be one of <f8, <f4, <f2, <u2 (bf16 bits), <i8, |u1 (got '" + descr + "')");
  const std::int64_t count = checked_elements(t.shape, file, "header.shape");
  const std::size_t want = static_cast<std::size_t>(count) * tensor_dtype_size(t.dtype);
  const std::size_t have = data.size() - start - hlen;
  if (have != want)
    throw FormatError(file, "data", std::to_string(have) + " bytes where the shape needs " + std::to_string(want) +
                                        (have < want ? " (truncated file?)" : ""));
  t.bytes.assign(data.begin() + static_cast<std::ptrdiff_t>(start + hlen), data.end());
  return t;
}

}  // namespace ropecheck::golden
