// SPDX-License-Identifier: MIT
// The definitions of python/module/kernel_declaration.h.
#include "python/module/kernel_declaration.h"

#include <pybind11/stl.h>

#include <optional>
#include <vector>

#include "core/error_model/error_model.h"
#include "impls/kernel_support/impl_table.h"
#include "python/module/builtin_kernel.h"
#include "python/module/named_policies.h"
#include "ropecheck/names.h"

namespace ropecheck::python {
namespace {

template <class E, class Parse>
std::uint32_t mask_of(const std::vector<std::string>& names, Parse parse, const char* what) {
  std::uint32_t m = 0;
  for (const auto& n : names) {
    E e;
    if (!parse(n, &e)) throw py::value_error(std::string(what) + ": unknown name '" + n + "'");
    m |= 1u << e;
  }
  if (m == 0) throw py::value_error(std::string(what) + ": must name at least one");
  return m;
}

// The ABI 1.3 grants of the multi-axis forms a Python kernel names:
// "sections", "interleaved", "table" (which axis each pair rotates with) and
// "per_axis" (per-axis frequencies on top of those).
std::uint32_t axis_flags(const std::vector<std::string>& forms) {
  std::uint32_t f = 0;
  for (const auto& name : forms) {
    if (name == "sections") f |= ROPECHECK_CAP_AXES_SECTIONS;
    else if (name == "interleaved") f |= ROPECHECK_CAP_AXES_INTERLEAVED;
    else if (name == "table") f |= ROPECHECK_CAP_AXES_TABLE;
    else if (name == "per_axis") f |= ROPECHECK_CAP_AXIS_FREQUENCIES;
    else
      throw py::value_error("multi_axis: unknown form '" + name + "' (sections, interleaved, table, per_axis)");
  }
  if ((f & ROPECHECK_CAP_AXIS_FREQUENCIES) && !(f & impl::kAllAxisForms))
    throw py::value_error("multi_axis: per_axis needs an assignment (sections, interleaved or table)");
  return f;
}

// ABI 1.1's and 1.7's restricting capability flags (kernel_abi.h), by the names
// ropecheck.RESTRICTIONS lists: the gate skips the cases they exclude.
std::uint32_t restriction_flags(const std::vector<std::string>& names) {
  std::uint32_t f = 0;
  for (const auto& name : names) {
    if (name == "yarn_truncated_only") f |= ROPECHECK_CAP_YARN_TRUNCATED_ONLY;
    else if (name == "no_explicit_attention_factor") f |= ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR;
    else if (name == "no_runtime_seq_len") f |= ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN;
    else if (name == "no_yarn_mscale") f |= ROPECHECK_CAP_NO_YARN_MSCALE;
    else
      throw py::value_error("restrictions: unknown restriction '" + name +
                            "' (yarn_truncated_only, no_explicit_attention_factor, no_runtime_seq_len, "
                            "no_yarn_mscale)");
  }
  return f;
}

// ABI 1.4's kv_policy from ropecheck.KvCacheWrite's fields (its Python
// side, __init__.py, passes them as a dict): cache_dtypes, scale_kinds,
// scale_direction, saturate, via_storage.
ropecheck_kv_policy_t kv_policy_of(const py::dict& d) {
  ropecheck_kv_policy_t k{};
  k.struct_size = sizeof k;
  static const char* kDtypes[] = {"f32", "f16", "bf16", "fp8_e4m3fn", "fp8_e5m2"};
  for (const auto& name : d["cache_dtypes"].cast<std::vector<std::string>>()) {
    std::uint32_t bit = 0;
    for (std::uint32_t i = 0; i < ROPECHECK_KV_DTYPE_COUNT; ++i)
      if (name == kDtypes[i]) bit = 1u << i;
    if (bit == 0)
      throw py::value_error("fused.cache_dtypes: unknown dtype '" + name + "' (f32, f16, bf16, fp8_e4m3fn, fp8_e5m2)");
    k.cache_dtypes |= bit;
  }
  for (const auto& name : d["scale_kinds"].cast<std::vector<std::string>>()) {
    if (name == "per_tensor") k.scale_kinds |= 1u << ROPECHECK_KV_SCALE_PER_TENSOR;
    else if (name == "per_head") k.scale_kinds |= 1u << ROPECHECK_KV_SCALE_PER_HEAD;
    else throw py::value_error("fused.scale_kinds: unknown kind '" + name + "' (per_tensor, per_head)");
  }
  const std::string direction = d["scale_direction"].cast<std::string>();
  if (direction != "divide" && direction != "multiply")
    throw py::value_error("fused.scale_direction: must be 'divide' (vLLM) or 'multiply' (FlashInfer)");
  k.scale_direction = direction == "multiply" ? ROPECHECK_KV_SCALE_MULTIPLY : ROPECHECK_KV_SCALE_DIVIDE;
  k.saturate = d["saturate"].cast<bool>() ? 1u : 0u;
  k.via_storage = d["via_storage"].cast<bool>() ? 1u : 0u;
  return k;
}

// A policy by name (ropecheck.POLICIES), or ropecheck.Policy's dict: a named
// policy with parts stated (ABI 1.1's ulps and fast sin/cos, 1.7's
// frequency form and subnormals). The numbers are checked with the rest of
// the table (ErrorModel::check_policy, naming the ABI field and its bound).
Policy declared_policy(const py::handle& given) {
  if (py::isinstance<py::str>(given)) return policy_named(given.cast<std::string>());
  const py::dict d = given.cast<py::dict>();
  Policy p = policy_named(d["name"].cast<std::string>());
  const std::string subnormals = d["subnormals"].cast<std::string>();
  ropecheck_subnormals_t sub{};
  if (!parse_subnormals(subnormals, &sub))
    throw py::value_error("policy.subnormals: must be 'kept' or 'flushed' (got '" + subnormals + "')");
  p.ext2.subnormals = sub;
  const std::string form = d["freq_form"].cast<std::string>();
  ropecheck_freq_form_t f{};
  if (!parse_freq_form(form, &f))
    throw py::value_error("policy.freq_form: must be 'power', 'exp_log' or 'table' (got '" + form + "')");
  p.ext2.freq_form = f;
  p.ext2.freq_exp_slope = d["freq_exp_slope"].cast<double>();
  if (!d["freq_ulps"].is_none()) p.ext.freq_pow_max_ulp = d["freq_ulps"].cast<double>();
  if (!d["sincos_ulps"].is_none()) p.ext.sincos_max_ulp = d["sincos_ulps"].cast<double>();
  if (!d["fast_sincos"].is_none()) {
    const auto fast = d["fast_sincos"].cast<std::vector<double>>();
    if (fast.size() != 3)
      throw py::value_error("policy.fast_sincos: (max abs error, range, phase slope), 3 numbers");
    p.base.sincos = ROPECHECK_SINCOS_FAST;
    p.base.sincos_max_abs_error = fast[0];
    p.ext.sincos_abs_error_range = fast[1];
    p.ext.sincos_phase_error_slope = fast[2];
    p.ext.sincos_max_ulp = 0;
  }
  if (const std::string bad = ErrorModel::check_policy(p); !bad.empty()) throw py::value_error("policy: " + bad);
  return p;
}

}  // namespace

PythonKernelOptions declared_kernel(const py::object& fn, const std::string& name, const py::dict& d) {
  const auto strings = [&](const char* key) { return d[key].cast<std::vector<std::string>>(); };
  const std::string tensors = d["tensors"].cast<std::string>();
  const std::string device = d["device"].cast<std::string>();
  const std::vector<std::string> layouts = strings("layouts"), dtypes = strings("dtypes"),
                                 schemes = strings("schemes"), multi_axis = strings("multi_axis"),
                                 restrictions = strings("restrictions");
  const py::object policy = d["policy"];
  const bool in_place = d["in_place"].cast<bool>(), inverse = d["inverse"].cast<bool>(),
             partial_rotary = d["partial_rotary"].cast<bool>(),
             negative_positions = d["negative_positions"].cast<bool>();
  const std::int64_t max_position = d["max_position"].cast<std::int64_t>();
  std::optional<py::dict> kv_write;
  if (!d["kv_write"].is_none()) kv_write = d["kv_write"].cast<py::dict>();
  PythonKernelOptions ko;
  ko.name = name;
  if (tensors != "numpy" && tensors != "torch") throw py::value_error("tensors: must be 'numpy' or 'torch'");
  ko.arrays = ArrayKind{tensors == "torch", device};
  ko.in_place = in_place;
  if (py::isinstance<BuiltinKernel>(fn)) {
    // A built-in kernel declares what its table declares.
    const ropecheck_impl_t& t = fn.cast<const BuiltinKernel&>().table();
    ko.caps = t.caps;
    ko.policy = policy_of(t);
    ko.description = std::string("the built-in ") + t.name + " called from Python";
  } else {
    // The array bridge gathers batched sequences into one dense
    // [tokens, heads, head_dim] array: every Python kernel takes them.
    // Every callable may raise ropecheck.Unsupported to decline a case
    // (ABI 1.7's MAY_DECLINE): a skip counted by its reason.
    std::uint32_t flags = ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_POS_INT32 |
                          ROPECHECK_CAP_POS_INT64 | ROPECHECK_CAP_SEQ_STRIDES | ROPECHECK_CAP_MAY_DECLINE;
    if (inverse) flags |= ROPECHECK_CAP_INVERSE;
    if (partial_rotary) flags |= ROPECHECK_CAP_PARTIAL_ROTARY;
    if (negative_positions) flags |= ROPECHECK_CAP_NEGATIVE_POSITIONS;
    // Positions [num_axes, tokens] with RopeCall's assignment (ABI 1.3),
    // for the forms named.
    flags |= axis_flags(multi_axis);
    flags |= restriction_flags(restrictions);
    ko.caps = ropecheck_caps_t{sizeof(ropecheck_caps_t),
                               mask_of<ropecheck_layout_t>(layouts, parse_layout, "layouts"),
                               mask_of<ropecheck_dtype_t>(dtypes, parse_dtype, "dtypes"),
                               schemes.empty() ? impl::kAllSchemes
                                               : mask_of<ropecheck_scheme_t>(schemes, parse_scheme, "schemes"),
                               4096, flags};
    ko.policy = declared_policy(policy);
  }
  if (kv_write) {
    if (py::isinstance<BuiltinKernel>(fn))
      throw py::value_error("fused: a built-in kernel declares its own capabilities");
    ko.caps.flags |= ROPECHECK_CAP_KV_CACHE_WRITE;
    ko.kv_policy = kv_policy_of(*kv_write);
  }
  if ((ko.caps.dtypes & (1u << ROPECHECK_DTYPE_F64)) != 0)
    throw py::value_error("dtypes: f64 storage is not run by the gate (golden vectors carry it)");
  if (max_position != 0 && py::isinstance<BuiltinKernel>(fn))
    throw py::value_error("max_position: a built-in kernel declares its own capabilities");
  ko.max_position = max_position;  // the table's ABI 1.5 field, validated with the rest
  return ko;
}

}  // namespace ropecheck::python
