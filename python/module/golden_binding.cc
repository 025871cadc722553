// SPDX-License-Identifier: MIT
// ropecheck.golden: the definitions of python/module/golden_binding.h.
#include "python/module/golden_binding.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "golden/verify/export_files.h"
#include "golden/manifest/manifest.h"
#include "golden/formats/tensor_file.h"

namespace ropecheck::python {
namespace {

// The numpy dtype of a tensor's stored bytes; bf16 keeps its bit patterns
// as uint16 (numpy has no bfloat16), as the npy format stores it.
py::dtype stored_dtype(golden::TensorDtype t) {
  switch (t) {
    case golden::TensorDtype::kF64: return py::dtype("<f8");
    case golden::TensorDtype::kF32: return py::dtype("<f4");
    case golden::TensorDtype::kF16: return py::dtype("<f2");
    case golden::TensorDtype::kBF16: return py::dtype("<u2");
    case golden::TensorDtype::kI64: return py::dtype("<i8");
    case golden::TensorDtype::kU8: return py::dtype("|u1");  // an fp8 KV cache's codes
  }
  throw std::logic_error("unknown tensor dtype");
}

// A loaded export: its validated manifest, kept so each case's files are
// checked against it when read.
class GoldenExport {
 public:
  GoldenExport(std::string dir, const std::string& expect_sums_sha256)
      : dir_(std::move(dir)), manifest_(golden::load_manifest(dir_, expect_sums_sha256)) {}
  std::string manifest_json() const { return golden::manifest_to_json(manifest_); }
  int case_count() const { return static_cast<int>(manifest_.cases.size()); }
  // name -> (numpy array of the stored values, dtype name).
  py::dict case_tensors(int index) const {
    if (index < 0 || index >= case_count())
      throw py::index_error("case index " + std::to_string(index) + " outside [0, " + std::to_string(case_count()) +
                            ")");
    const std::vector<golden::Tensor> tensors =
        golden::load_case_tensors(dir_, manifest_, manifest_.cases[static_cast<std::size_t>(index)]);
    py::dict out;
    for (const golden::Tensor& t : tensors) {
      py::array a(stored_dtype(t.dtype), t.shape);
      if (static_cast<std::size_t>(a.nbytes()) != t.bytes.size())
        throw golden::FormatError(t.name, "bytes", "does not match its shape");
      std::memcpy(a.mutable_data(), t.bytes.data(), t.bytes.size());
      out[py::str(t.name)] = py::make_tuple(a, golden::tensor_dtype_name(t.dtype));
    }
    return out;
  }

 private:
  std::string dir_;
  golden::Manifest manifest_;
};

}  // namespace

void bind_golden(py::module_& m) {
  // Every refusal of the reader (a missing, truncated, altered or
  // malformed file, an unpinned SHA256SUMS) names the file and the field.
  py::register_exception<golden::FormatError>(m, "GoldenError", PyExc_ValueError);
  py::class_<GoldenExport>(m, "GoldenExport")
      .def(py::init<std::string, const std::string&>(), py::arg("directory"), py::arg("expect_sha256") = "")
      .def_property_readonly("manifest_json", &GoldenExport::manifest_json)
      .def_property_readonly("case_count", &GoldenExport::case_count)
      .def("case_tensors", &GoldenExport::case_tensors, py::arg("index"));
}

}  // namespace ropecheck::python
