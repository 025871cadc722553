// SPDX-License-Identifier: MIT
// The compiled half of the `ropecheck` Python package (ropecheck._core); the
// typed, documented API a user imports is python/ropecheck/__init__.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/module/bench_binding.h"
#include "python/module/builtin_kernel.h"
#include "python/module/check_binding.h"
#include "python/module/golden_binding.h"
#include "python/module/python_kernel.h"
#include "python/module/reference_binding.h"

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  using namespace ropecheck::python;
  m.doc() = "ropecheck's C++ core (use the ropecheck package, not this module directly)";
  m.attr("ABI_VERSION") = ROPECHECK_ABI_VERSION;
  // The pybind11 the module was built with: before 2.12 it reads numpy 1's
  // array structs only (ropecheck/__init__.py refuses numpy 2 then).
  m.attr("PYBIND11_VERSION") = py::make_tuple(PYBIND11_VERSION_MAJOR, PYBIND11_VERSION_MINOR, PYBIND11_VERSION_PATCH);

  py::register_exception<KernelContractError>(m, "KernelContractError", PyExc_TypeError);
  py::register_exception<Unsupported>(m, "Unsupported", PyExc_Exception);

  py::class_<RopeCall>(m, "RopeCall", "The rope parameters of one kernel call.")
      .def_readonly("head_dim", &RopeCall::head_dim)
      .def_readonly("rotary_dim", &RopeCall::rotary_dim)
      .def_readonly("layout", &RopeCall::layout, "'interleaved' (GPT-J, Meta) or 'half_split' (NeoX, HF)")
      .def_readonly("direction", &RopeCall::direction, "'forward', or 'inverse' (rotate by -angle)")
      .def_readonly("scheme", &RopeCall::scheme)
      .def_readonly("dtype", &RopeCall::dtype, "storage dtype of q and k")
      .def_readonly("seq_len", &RopeCall::seq_len, "current sequence length (dynamic NTK, LongRoPE)")
      .def_readonly("config", &RopeCall::config, "the config in ropecheck's own schema")
      .def_readonly("hf_config", &RopeCall::hf_config, "the config as a Hugging Face config.json states it")
      .def_readonly("num_axes", &RopeCall::num_axes, "0: positions is [tokens]; else positions is [num_axes, tokens]")
      .def_readonly("axis_assignment", &RopeCall::axis_assignment, "'sections', 'interleaved' or 'table'")
      .def_readonly("axis_frequencies", &RopeCall::axis_frequencies, "'shared' or 'per_axis'")
      .def_readonly("axis_sections", &RopeCall::axis_sections, "pairs per axis (sections, interleaved)")
      .def_readonly("pair_axis", &RopeCall::pair_axis, "the axis of every pair (table)")
      .def("__repr__", [](const RopeCall& r) {
        return "RopeCall(" + r.scheme + ", " + r.layout + ", " + r.direction + ", head_dim=" +
               std::to_string(r.head_dim) + ", rotary_dim=" + std::to_string(r.rotary_dim) + ", dtype=" + r.dtype + ")";
      });

  py::class_<KvCacheCall>(m, "KvCacheCall",
                          "A fused kernel's KV-cache write (its fifth argument): write k and v into the caches in "
                          "place, token t at slot slot_mapping[t] (block slot // block_size, entry slot % block_size)")
      .def_readonly("v", &KvCacheCall::v, "[tokens, kv_heads, head_dim], q and k's dtype")
      .def_readonly("k_cache", &KvCacheCall::k_cache,
                    "NHD [num_blocks, block_size, kv_heads, head_dim] or HND [num_blocks, kv_heads, block_size, "
                    "head_dim]; f32/f16, bf16 as q is, fp8 as uint8 codes")
      .def_readonly("v_cache", &KvCacheCall::v_cache, "as k_cache")
      .def_readonly("slot_mapping", &KvCacheCall::slot_mapping, "int64 [tokens]; -1: padding, nothing written")
      .def_readonly("k_scale", &KvCacheCall::k_scale, "float32 [1] (per_tensor) or [kv_heads] (per_head)")
      .def_readonly("v_scale", &KvCacheCall::v_scale, "as k_scale")
      .def_readonly("cache_dtype", &KvCacheCall::cache_dtype, "'f32', 'f16', 'bf16', 'fp8_e4m3fn' or 'fp8_e5m2'")
      .def_readonly("layout", &KvCacheCall::layout, "'NHD' or 'HND'")
      .def_readonly("scale_kind", &KvCacheCall::scale_kind, "'per_tensor' or 'per_head'")
      .def_readonly("num_blocks", &KvCacheCall::num_blocks)
      .def_readonly("block_size", &KvCacheCall::block_size)
      .def("__repr__", [](const KvCacheCall& c) {
        return "KvCacheCall(" + c.cache_dtype + " " + c.layout + ", " + std::to_string(c.num_blocks) + " blocks of " +
               std::to_string(c.block_size) + ", " + c.scale_kind + " scales)";
      });

  py::class_<BuiltinKernel>(m, "BuiltinKernel", "A built-in implementation, callable like a Python kernel.")
      .def(py::init<const std::string&>())
      .def_property_readonly("name", [](const BuiltinKernel& b) { return std::string(b.table().name); })
      .def("__call__", &BuiltinKernel::operator());

  bind_check(m);
  bind_bench(m);
  bind_reference(m);
  bind_golden(m);
}
