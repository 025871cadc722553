#include "python/module/check_binding.h"

#include <pybind11/stl.h>

#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/kernel/impl_validation.h"
#include "gate/gate.h"
#include "impls/kernel_support/impl_table.h"
#include "properties/property.h"
#include "python/module/builtin_kernel.h"
#include "python/module/named_policies.h"
#include "python/module/python_kernel.h"
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

py::dict family_dict(const FamilyStats& f) {
  py::dict d;
  d["cases"] = f.cases;
  d["passed"] = f.passed;
  d["failed"] = f.failed;
  d["skipped"] = f.skipped;
  d["worst_budget_units"] = f.worst_units;
  d["worst_ulps"] = f.worst_ulps;
  return d;
}

py::dict property_dict(const PropertyStats& s) {
  py::dict d;
  d["cases"] = s.cases;
  d["passed"] = s.passed;
  d["failed"] = s.failed;
  d["skipped"] = s.skipped;
  d["worst_budget_units"] = s.worst_units;
  d["applicable"] = s.applicable;
  d["not_applicable"] = s.not_applicable;
  return d;
}

py::dict report_dict(const GateReport& r, const std::vector<std::string>& tracebacks) {
  py::dict d;
  d["passed"] = r.passed();
  d["suite"] = suite_name(r.suite);
  d["seed"] = r.seed;
  d["cases"] = r.cases;
  d["seconds"] = r.seconds;
  std::ostringstream tables, failures;
  print_summary(r, tables);
  print_failures(r, failures, 1000000);
  d["tables"] = tables.str();
  d["failure_text"] = failures.str();
  const ImplReport& i = r.impls.at(0);
  py::dict families, properties;
  for (const auto& [name, f] : i.families) families[py::str(name)] = family_dict(f);
  for (const auto& [name, s] : i.properties) properties[py::str(name)] = property_dict(s);
  d["families"] = families;
  d["properties"] = properties;
  py::list fl;
  for (const FailureRecord& f : i.failures) {
    py::dict x;
    x["case"] = f.case_index;
    x["property"] = f.property;
    x["family"] = f.family;
    x["message"] = f.message;
    x["description"] = f.case_description;
    x["cli_reproduce"] = f.reproduce;
    fl.append(x);
  }
  d["failures"] = fl;
  // Properties judged on too few cases (the verdict floor): a failed verdict
  // with no failing case, which must say why all the same.
  py::list floor;
  for (const auto& [property, why] : i.under_floor) floor.append(py::make_tuple(property, why));
  d["under_floor"] = floor;
  d["redrawn"] = i.redrawn;
  d["errors"] = tracebacks;
  return d;
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

// ABI 1.1's restricting capability flags (kernel_abi.h), by the names
// ropecheck.RESTRICTIONS lists: the gate skips the cases they exclude.
std::uint32_t restriction_flags(const std::vector<std::string>& names) {
  std::uint32_t f = 0;
  for (const auto& name : names) {
    if (name == "yarn_truncated_only") f |= ROPECHECK_CAP_YARN_TRUNCATED_ONLY;
    else if (name == "no_explicit_attention_factor") f |= ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR;
    else if (name == "no_runtime_seq_len") f |= ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN;
    else
      throw py::value_error("restrictions: unknown restriction '" + name +
                            "' (yarn_truncated_only, no_explicit_attention_factor, no_runtime_seq_len)");
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

struct Target {
  std::optional<PythonKernel> kernel;
  const ropecheck_impl_t* table = nullptr;
};

}  // namespace

void bind_check(py::module_& m) {
  m.def(
      "check",
      [](py::object fn, const std::string& name, std::vector<std::string> layouts, std::vector<std::string> dtypes,
         std::vector<std::string> schemes, const std::string& policy, const std::string& suite, std::uint64_t seed,
         std::optional<int> cases, std::optional<int> only_case, std::vector<std::string> properties, bool in_place,
         bool inverse, bool partial_rotary, bool negative_positions, std::vector<std::string> multi_axis,
         const std::string& tensors, const std::string& device, std::int64_t max_position,
         std::vector<std::string> restrictions, bool redraw, bool redraw_schemes, std::optional<py::dict> kv_write) {
        GateOptions o;
        o.redraw = redraw;
        o.redraw_schemes = redraw && redraw_schemes;
        if (!parse_suite(suite, &o.suite)) throw py::value_error("suite: must be quick, standard or exhaustive");
        o.seed = seed;
        if (cases && (*cases < 1 || *cases > suite_size(o.suite) * 100))
          throw py::value_error("cases: must be >= 1");
        o.cases = cases;
        const int total = cases ? *cases : suite_size(o.suite);
        if (only_case && (*only_case < 0 || *only_case >= total))
          throw py::value_error("case: must be in [0, " + std::to_string(total) + ")");
        o.only_case = only_case;
        for (const auto& p : properties)
          if (!prop::find_property(p)) throw py::value_error("properties: no property named '" + p + "'");
        o.properties = properties;
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
          std::uint32_t flags = ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_POS_INT32 |
                                ROPECHECK_CAP_POS_INT64 | ROPECHECK_CAP_SEQ_STRIDES;
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
          ko.policy = policy_named(policy);
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
        PythonKernel kernel(fn, ko);
        if (const std::string bad = validate_impl_table(kernel.table()); !bad.empty())
          throw py::value_error("the kernel's declaration: " + bad);
        o.impls = {kernel.table()};
        const GateReport r = run_gate(o);  // C++ exceptions and Python errors propagate
        return report_dict(r, kernel.tracebacks());
      },
      py::arg("fn"), py::kw_only(), py::arg("name"), py::arg("layouts"), py::arg("dtypes"), py::arg("schemes"),
      py::arg("policy"), py::arg("suite"), py::arg("seed"), py::arg("cases"), py::arg("case"), py::arg("properties"),
      py::arg("in_place"), py::arg("inverse"), py::arg("partial_rotary"), py::arg("negative_positions"),
      py::arg("multi_axis"), py::arg("tensors"), py::arg("device"), py::arg("max_position"),
      py::arg("restrictions"), py::arg("redraw") = true, py::arg("redraw_schemes") = true,
      py::arg("kv_write") = py::none());

  m.def("policy_names", [] {
    std::vector<std::string> v;
    for (const auto& p : named_policies()) v.emplace_back(p.name);
    return v;
  });
  m.def("property_names", [] {
    std::vector<std::string> v;
    for (const auto& p : prop::kernel_properties()) v.emplace_back(p.name);
    return v;
  });
}

}  // namespace ropecheck::python
