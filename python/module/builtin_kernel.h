// SPDX-License-Identifier: MIT
// A built-in implementation called from Python on dense arrays, with the
// calling convention of a Python kernel: fn(q, k, positions, rope) ->
// (q_out, k_out). Checking it through ropecheck.check must give exactly the
// CLI's cases and verdicts (a test compares them), which proves the bridge.
#ifndef ROPECHECK_PYTHON_MODULE_BUILTIN_KERNEL_H_
#define ROPECHECK_PYTHON_MODULE_BUILTIN_KERNEL_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "python/module/python_kernel.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::python {

class BuiltinKernel {
 public:
  explicit BuiltinKernel(const std::string& name);  // throws std::invalid_argument
  const ropecheck_impl_t& table() const { return *impl_; }
  py::tuple operator()(const py::array& q, const py::array& k, const py::array& positions, const RopeCall& rope) const;

 private:
  const ropecheck_impl_t* impl_;
};

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_BUILTIN_KERNEL_H_
