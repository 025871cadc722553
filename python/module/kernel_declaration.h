// SPDX-License-Identifier: MIT
// What a Python kernel declares (the keyword arguments ropecheck.check and
// ropecheck.bench share: layouts, dtypes, schemes, policy, in_place,
// inverse, partial_rotary, negative_positions, multi_axis, max_position,
// restrictions, tensors, device, fused), read in one place into the
// options its ropecheck_impl_t is built from. The Python side
// (ropecheck/__init__.py, _declaration) passes them as one dict.
#ifndef ROPECHECK_PYTHON_MODULE_KERNEL_DECLARATION_H_
#define ROPECHECK_PYTHON_MODULE_KERNEL_DECLARATION_H_

#include <pybind11/pybind11.h>

#include <string>

#include "python/module/python_kernel.h"

namespace ropecheck::python {

// The options of `fn` (a callable or a BuiltinKernel, which declares what
// its table declares) under `name`. py::value_error names the key and what
// it takes for anything unknown or contradictory.
PythonKernelOptions declared_kernel(const py::object& fn, const std::string& name, const py::dict& declaration);

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_KERNEL_DECLARATION_H_
