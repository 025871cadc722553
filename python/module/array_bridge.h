// SPDX-License-Identifier: MIT
// Tensors between the C ABI's strided storage and the arrays a Python
// kernel works on: numpy arrays, or torch tensors on a chosen device.
// numpy has no bfloat16: bf16 data reaches a numpy kernel widened exactly to
// float32, and its float32 results are rounded to bf16 (nearest even), as
// torch's .to(torch.bfloat16) does; torch kernels get torch.bfloat16.
#ifndef ROPECHECK_PYTHON_MODULE_ARRAY_BRIDGE_H_
#define ROPECHECK_PYTHON_MODULE_ARRAY_BRIDGE_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::python {

namespace py = pybind11;

// How a kernel wants its arrays.
struct ArrayKind {
  bool torch = false;
  std::string device = "cpu";
};

// One tensor of a call: [tokens, heads, head_dim] with element strides.
struct StridedView {
  const void* in = nullptr;
  void* out = nullptr;
  std::int64_t tokens = 0, heads = 0, head_dim = 0;
  std::int64_t token_stride = 0, head_stride = 0;
  ropecheck_dtype_t dtype = ROPECHECK_DTYPE_F32;
  // ABI 1.2 batched sequences (seq_len 0: one run of tokens): the kernel
  // still sees one dense [tokens, heads, head_dim] array.
  std::int64_t seq_len = 0, seq_stride = 0;
  // Element offset of head h of token t.
  std::int64_t offset(std::int64_t t, std::int64_t h) const {
    return (seq_len > 0 ? (t / seq_len) * seq_stride + (t % seq_len) * token_stride : t * token_stride) +
           h * head_stride;
  }
};

// A dense numpy copy of the view's input (bf16 widened to float32).
py::array dense_copy(const StridedView& v);
// The numpy dtype a kernel's result must have for this storage dtype.
py::dtype result_dtype(ropecheck_dtype_t t);
// numpy -> the kernel's array type (torch.from_numpy(...).to(device); bf16
// as torch.bfloat16), and back to a fresh numpy copy on the host.
py::object to_kernel_array(const py::array& a, ropecheck_dtype_t storage, const ArrayKind& kind);
py::array to_host_copy(const py::handle& obj, ropecheck_dtype_t storage, const ArrayKind& kind);
// Writes a dense [tokens, heads, head_dim] result (of result_dtype) into the
// view's output, rounding float32 to bf16 where the storage is bf16.
void write_back(const py::array& a, const StridedView& v);
// Bitwise equality of two dense numpy arrays (+0/-0 and NaN payloads count).
bool same_bits(const py::array& a, const py::array& b);

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_ARRAY_BRIDGE_H_
