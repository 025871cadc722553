// SPDX-License-Identifier: MIT
// Tensors of golden files, and the helpers all three formats share.
#include <cstring>

#include "golden/formats/storage_dtype.h"
#include "golden/formats/tensor_codec.h"
#include "golden/formats/tensor_file.h"
#include "ropecheck/dtype.h"

namespace ropecheck::golden {
namespace codec {

namespace {
constexpr DtypeNames kNames[] = {
    {TensorDtype::kF64, "f64", "F64", "<f8"},  {TensorDtype::kF32, "f32", "F32", "<f4"},
    {TensorDtype::kF16, "f16", "F16", "<f2"},  {TensorDtype::kBF16, "bf16", "BF16", "<u2"},
    {TensorDtype::kI64, "i64", "I64", "<i8"},  {TensorDtype::kU8, "u8", "U8", "|u1"},
};

}  // namespace

const DtypeNames& names_of(TensorDtype t) {
  for (const auto& n : kNames)
    if (n.t == t) return n;
  return kNames[0];
}

bool dtype_from(std::string_view s, TensorDtype* out, const char* DtypeNames::*pick) {
  for (const auto& n : kNames)
    if (s == n.*pick) {
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

}  // namespace codec

using codec::names_of;

std::size_t tensor_dtype_size(TensorDtype t) {
  switch (t) {
    case TensorDtype::kF16:
    case TensorDtype::kBF16:
      return 2;
    case TensorDtype::kF32:
      return 4;
    case TensorDtype::kU8:
      return 1;
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
    case TensorDtype::kU8:
      return static_cast<double>(int_value(i));
  }
  return 0;
}

std::int64_t Tensor::int_value(std::int64_t i) const {
  if (dtype == TensorDtype::kU8) return bytes[static_cast<std::size_t>(i)];
  std::int64_t v = 0;
  std::memcpy(&v, bytes.data() + static_cast<std::size_t>(i) * 8, 8);
  return v;
}

Tensor i64_tensor(std::string name, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& v) {
  Tensor t{std::move(name), TensorDtype::kI64, std::move(shape), {}};
  t.bytes.resize(v.size() * 8);
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

Tensor f64_tensor(std::string name, std::vector<std::int64_t> shape, const std::vector<double>& v) {
  Tensor t;
  t.name = std::move(name);
  t.dtype = TensorDtype::kF64;
  t.shape = std::move(shape);
  t.bytes.resize(v.size() * 8);
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

TensorDtype storage_tensor_dtype(ropecheck_dtype_t t) {
  switch (t) {
    case ROPECHECK_DTYPE_F16: return TensorDtype::kF16;
    case ROPECHECK_DTYPE_BF16: return TensorDtype::kBF16;
    case ROPECHECK_DTYPE_F64: return TensorDtype::kF64;
    default: return TensorDtype::kF32;
  }
}

}  // namespace ropecheck::golden
