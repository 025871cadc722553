// SPDX-License-Identifier: MIT
// A Python callable as an implementation under test: a ropecheck_impl_t
// whose apply() hands the callable dense copies of q and k, the positions
// and the rope parameters of the call, and judges only what it gets back:
//   - results are copied into plain host arrays at once (a lazily evaluated
//     tensor, or one the callable keeps and changes later, cannot pass);
//   - its inputs must come back unchanged (unless it declared in_place);
//   - a result of the wrong shape or dtype stops the run with a
//     KernelContractError naming the tensor, the shape and dtype expected;
//   - an exception it raises is a failing case carrying the traceback, but
//     ropecheck.Unsupported("why"): the kernel declines that case (ABI
//     1.7's MAY_DECLINE), skipped and counted by its reason.
// Python kernels run in this process (no fork isolation: an interpreter,
// and often a CUDA context, do not survive fork()).
#ifndef ROPECHECK_PYTHON_MODULE_PYTHON_KERNEL_H_
#define ROPECHECK_PYTHON_MODULE_PYTHON_KERNEL_H_

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "python/module/array_bridge.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/policy.h"

namespace ropecheck::python {

// A callable broke the calling convention (not a wrong answer: a wrong call).
class KernelContractError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ropecheck.Unsupported: what a callable raises to decline one case.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a Python kernel receives as `rope`: the call's parameters.
struct RopeCall {
  int head_dim = 0, rotary_dim = 0;
  std::string layout, direction, scheme;
  std::string dtype;  // storage dtype of q and k: f32, f16, bf16 (widened to float32 for numpy), f64
  std::int64_t seq_len = 0;
  py::object config;     // ropecheck's own schema, as a dict
  py::object hf_config;  // the Hugging Face config.json form, or None (explicit frequencies)
  // ABI 1.3 multi-axis calls: the axis count (0: positions is [tokens]; else
  // [num_axes, tokens]), the assignment ("sections", "interleaved",
  // "table"), its arrays and the frequencies ("shared", "per_axis").
  int num_axes = 0;
  std::string axis_assignment, axis_frequencies;
  std::vector<int> axis_sections, pair_axis;
};

// ABI 1.4's KV-cache write as a fused Python kernel receives it, the fifth
// argument of fn(q, k, positions, rope, kv) (None for a call without one):
// the v to write, the paged K and V caches to write into in place (NHD
// [num_blocks, block_size, kv_heads, head_dim] or HND [num_blocks, kv_heads,
// block_size, head_dim]; f32, f16, bf16 as q and k are handed over, fp8 as
// uint8 codes, vLLM's storage), the slot per token (-1: padding, nothing
// written) and the k and v scales ([1] per tensor, [kv_heads] per head).
struct KvCacheCall {
  py::object v, k_cache, v_cache, slot_mapping, k_scale, v_scale;
  std::string cache_dtype, layout, scale_kind;
  std::int64_t num_blocks = 0;
  int block_size = 0;
};

struct PythonKernelOptions {
  std::string name = "python_kernel";
  std::string description = "a Python callable";
  ArrayKind arrays;
  bool in_place = false;  // the callable rotates q and k in place and returns None
  ropecheck_caps_t caps{};
  Policy policy{libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32)};
  // Positions it serves, |p| < max_position (ABI 1.5's table field); 0: no bound.
  std::int64_t max_position = 0;
  // With caps.flags KV_CACHE_WRITE: what its cache write declares; it is
  // called as fn(q, k, positions, rope, kv).
  ropecheck_kv_policy_t kv_policy{};
};

struct KvHandOff;  // python/module/kv_cache_bridge.h

class PythonKernel {
 public:
  PythonKernel(py::object fn, PythonKernelOptions options);
  PythonKernel(const PythonKernel&) = delete;
  PythonKernel& operator=(const PythonKernel&) = delete;
  const ropecheck_impl_t* table() const { return &table_; }
  // Tracebacks of the calls that raised, in call order.
  const std::vector<std::string>& tracebacks() const { return tracebacks_; }

 private:
  // One call's q and k: the views of the ABI's buffers, dense host copies
  // (one handed to the kernel, one kept to prove an out-of-place kernel left
  // its inputs alone) and the arrays the kernel receives.
  struct CallArrays {
    const StridedView* views;  // q, k
    ropecheck_dtype_t dtype;
    py::array host_in[2], pristine[2];
    py::object arg[2];
  };
  // The callable's arguments beside the RopeCall; kv: the cache write, or null.
  struct KernelArgs {
    const py::object& q;
    const py::object& k;
    const py::object& positions;
    const KvHandOff* kv;
  };

  static ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n);
  ropecheck_status_t call(const ropecheck_apply_params_t& p, char* err, std::size_t n);
  // Calls the callable; a raise becomes a declined case (ropecheck.Unsupported)
  // or an error with its traceback kept.
  ropecheck_status_t invoke(const ropecheck_apply_params_t& p, const KernelArgs& args, py::object* result, char* err,
                            std::size_t n);
  // q and k as the callable returned them (or, in place, as it left them),
  // checked against the calling convention (KernelContractError); the
  // returned text names an input an out-of-place kernel modified.
  std::string take_outputs(const py::object& result, const CallArrays& a, py::array (&got)[2]) const;
  bool fused() const { return (o_.caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE) != 0; }

  py::object fn_;
  PythonKernelOptions o_;
  ropecheck_impl_t table_{};
  std::vector<std::string> tracebacks_;
};

// The RopeCall of an ABI call (also what builtin_kernel reads back).
RopeCall rope_call(const ropecheck_apply_params_t& p);

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_PYTHON_KERNEL_H_
