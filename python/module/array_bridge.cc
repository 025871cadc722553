// SPDX-License-Identifier: MIT
// The definitions of python/module/array_bridge.h.
#include "python/module/array_bridge.h"

#include <cstring>

#include "ropecheck/dtype.h"

namespace ropecheck::python {
namespace {

bool widened(ropecheck_dtype_t t) { return t == ROPECHECK_DTYPE_BF16; }

std::size_t host_esize(ropecheck_dtype_t t) { return widened(t) ? 4 : dtype_size(t); }

}  // namespace

py::dtype result_dtype(ropecheck_dtype_t t) {
  switch (t) {
    case ROPECHECK_DTYPE_F16: return py::dtype("float16");
    case ROPECHECK_DTYPE_F64: return py::dtype("float64");
    default: return py::dtype("float32");  // f32, and bf16 widened
  }
}

py::array dense_copy(const StridedView& v) {
  py::array a(result_dtype(v.dtype), std::vector<py::ssize_t>{v.tokens, v.heads, v.head_dim});
  auto* dst = static_cast<unsigned char*>(a.mutable_data());
  const std::size_t es = dtype_size(v.dtype), hes = host_esize(v.dtype);
  for (std::int64_t t = 0; t < v.tokens; ++t)
    for (std::int64_t h = 0; h < v.heads; ++h) {
      const auto* src = static_cast<const unsigned char*>(v.in) + v.offset(t, h) * es;
      unsigned char* row = dst + ((t * v.heads + h) * v.head_dim) * hes;
      if (widened(v.dtype)) {
        for (std::int64_t j = 0; j < v.head_dim; ++j) {
          std::uint16_t b;
          std::memcpy(&b, src + 2 * j, 2);
          const float f = bf16_to_f32(b);
          std::memcpy(row + 4 * j, &f, 4);
        }
      } else {
        std::memcpy(row, src, static_cast<std::size_t>(v.head_dim) * es);
      }
    }
  return a;
}

py::object to_kernel_array(const py::array& a, ropecheck_dtype_t storage, const ArrayKind& kind) {
  if (!kind.torch) return a;
  py::module_ torch = py::module_::import("torch");
  py::object t;
  if (storage == ROPECHECK_DTYPE_BF16) {
    // float32 (exact bf16 values) -> torch.bfloat16 is exact.
    t = torch.attr("from_numpy")(a).attr("to")(torch.attr("bfloat16"));
  } else {
    t = torch.attr("from_numpy")(a);
  }
  return t.attr("to")(kind.device);
}

py::array to_host_copy(const py::handle& obj, ropecheck_dtype_t storage, const ArrayKind& kind) {
  py::module_ np = py::module_::import("numpy");
  if (kind.torch && py::hasattr(obj, "detach")) {
    py::module_ torch = py::module_::import("torch");
    py::object t = obj.attr("detach")().attr("to")("cpu");
    if (storage == ROPECHECK_DTYPE_BF16 && t.attr("dtype").equal(torch.attr("bfloat16")))
      t = t.attr("to")(torch.attr("float32"));  // exact
    return np.attr("array")(t.attr("numpy")(), py::arg("copy") = true, py::arg("order") = "C");
  }
  return np.attr("array")(obj, py::arg("copy") = true, py::arg("order") = "C");
}

void write_back(const py::array& a, const StridedView& v) {
  const auto* src = static_cast<const unsigned char*>(a.data());
  const std::size_t es = dtype_size(v.dtype), hes = host_esize(v.dtype);
  for (std::int64_t t = 0; t < v.tokens; ++t)
    for (std::int64_t h = 0; h < v.heads; ++h) {
      auto* dst = static_cast<unsigned char*>(v.out) + v.offset(t, h) * es;
      const unsigned char* row = src + ((t * v.heads + h) * v.head_dim) * hes;
      if (widened(v.dtype)) {
        for (std::int64_t j = 0; j < v.head_dim; ++j) {
          float f;
          std::memcpy(&f, row + 4 * j, 4);
          const std::uint16_t b = f32_to_bf16(f);
          std::memcpy(dst + 2 * j, &b, 2);
        }
      } else {
        std::memcpy(dst, row, static_cast<std::size_t>(v.head_dim) * es);
      }
    }
}

bool same_bits(const py::array& a, const py::array& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.nbytes())) == 0;
}

}  // namespace ropecheck::python
