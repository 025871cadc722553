// SPDX-License-Identifier: MIT
// ropecheck.bench on a Python callable (or a built-in kernel): the engine
// `ropecheck bench` runs (speed/bench_run.h), on a model's prefill and
// decode shapes, every timed call on fresh inputs and a sample of them
// judged, beside the memcpy and in-place baselines of the same run. Python
// kernels run in this process (python_kernel.h), so a thread a call leaves
// working is not seen, as with `ropecheck bench --no-isolation`.
#ifndef ROPECHECK_PYTHON_MODULE_BENCH_BINDING_H_
#define ROPECHECK_PYTHON_MODULE_BENCH_BINDING_H_

#include <pybind11/pybind11.h>

namespace ropecheck::python {

namespace py = pybind11;

// Adds _core.bench.
void bind_bench(py::module_& m);

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_BENCH_BINDING_H_
