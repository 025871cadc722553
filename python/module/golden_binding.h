// SPDX-License-Identifier: MIT
// ropecheck.golden: reading a golden export from Python with the very
// reader `ropecheck golden verify` uses (golden/manifest/manifest.h): SHA256SUMS
// required and optionally pinned, every file's size and checksum verified
// before it is parsed, every field validated. One reader, in C++; the
// Python side only turns its tensors into numpy arrays (or torch tensors).
#ifndef ROPECHECK_PYTHON_MODULE_GOLDEN_BINDING_H_
#define ROPECHECK_PYTHON_MODULE_GOLDEN_BINDING_H_

#include <pybind11/pybind11.h>

namespace ropecheck::python {

namespace py = pybind11;

void bind_golden(py::module_& m);

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_GOLDEN_BINDING_H_
