// SPDX-License-Identifier: MIT
// ropecheck.reference and ropecheck.config_from_hf: the exact reference for
// given inputs and a config, correctly rounded to a dtype, with the budget
// of a declared policy per element; and the config reading of --config.
#ifndef ROPECHECK_PYTHON_MODULE_REFERENCE_BINDING_H_
#define ROPECHECK_PYTHON_MODULE_REFERENCE_BINDING_H_

#include <pybind11/pybind11.h>

namespace ropecheck::python {

namespace py = pybind11;

void bind_reference(py::module_& m);

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_REFERENCE_BINDING_H_
