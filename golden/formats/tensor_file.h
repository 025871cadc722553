// SPDX-License-Identifier: MIT
// The three file formats golden vectors are written in, so a consumer in
// any language can read them with what it already has:
//   - safetensors (PyTorch, JAX, numpy via the `safetensors` package or the
//     8-byte-header + JSON layout read by hand), one file per case;
//   - npy (numpy.load), one file per tensor; bf16 has no numpy dtype and is
//     stored as its uint16 bit patterns ('<u2');
//   - JSON with every value as an exact C99 hex float (Python float.fromhex,
//     strtod), one file per case, for languages with no tensor library.
// Writers are deterministic (the same tensors give the same bytes on every
// machine); readers check every length, offset and shape against the bytes
// actually present and throw FormatError naming the file and the field.
#ifndef ROPECHECK_GOLDEN_FORMATS_TENSOR_FILE_H_
#define ROPECHECK_GOLDEN_FORMATS_TENSOR_FILE_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ropecheck::golden {

// kU8: the codes of an fp8 KV cache (fused cases), a byte each.
enum class TensorDtype { kF64, kF32, kF16, kBF16, kI64, kU8 };
std::size_t tensor_dtype_size(TensorDtype t);
const char* tensor_dtype_name(TensorDtype t);  // "f64", "f32", "f16", "bf16", "i64", "u8"

struct Tensor {
  std::string name;
  TensorDtype dtype = TensorDtype::kF64;
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> bytes;  // little-endian, row-major
  std::int64_t elements() const;
  double value(std::int64_t i) const;  // element i as a double (exact for every dtype but i64)
  std::int64_t int_value(std::int64_t i) const;  // element i of an i64 or u8 tensor
};
// An i64 tensor of `shape` holding v (positions, slot mappings); an f64 one
// (exact values, budgets).
Tensor i64_tensor(std::string name, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& v);
Tensor f64_tensor(std::string name, std::vector<std::int64_t> shape, const std::vector<double>& v);

class FormatError : public std::runtime_error {
 public:
  FormatError(const std::string& file, const std::string& field, const std::string& what)
      : std::runtime_error(file + ": " + field + ": " + what) {}
};
// Throws FormatError: the manifest and tensor readers' one way to refuse a
// field (never returns, so a check reads as one line).
[[noreturn]] inline void bad(const std::string& file, const std::string& field, const std::string& what) {
  throw FormatError(file, field, what);
}

// Largest file a reader accepts (golden cases are a few MiB at most).
inline constexpr std::size_t kMaxTensorFileBytes = std::size_t{1} << 30;

// `file` only names the source in errors.
std::string write_safetensors(const std::vector<Tensor>& tensors);
std::vector<Tensor> read_safetensors(std::string_view data, const std::string& file);

std::string write_npy(const Tensor& t);
Tensor read_npy(std::string_view data, const std::string& file, const std::string& name);

std::string write_hex_json(const std::vector<Tensor>& tensors);
std::vector<Tensor> read_hex_json(std::string_view data, const std::string& file);

// Exact, canonical hex float of a finite or infinite double:
// "0x1.8p+1", "-0x0p+0", "0x0.0000000000001p-1022", "inf", "-inf".
std::string format_hex_float(double v);
// Parses exactly what format_hex_float writes (and any other C99 hex float
// strtod accepts); false on anything else.
bool parse_hex_float(std::string_view s, double* out);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_FORMATS_TENSOR_FILE_H_
