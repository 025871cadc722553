// SPDX-License-Identifier: MIT
// ropecheck.check and ropecheck.fuzz on a Python callable (or a built-in
// kernel), over the very gate `ropecheck check` runs.
#ifndef ROPECHECK_PYTHON_MODULE_CHECK_BINDING_H_
#define ROPECHECK_PYTHON_MODULE_CHECK_BINDING_H_

#include <pybind11/pybind11.h>

namespace ropecheck::python {

namespace py = pybind11;

// Adds _core.check, _core.fuzz, _core.policy_names, _core.property_names.
void bind_check(py::module_& m);

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_CHECK_BINDING_H_
