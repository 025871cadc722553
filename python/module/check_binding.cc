// SPDX-License-Identifier: MIT
// The definitions of python/module/check_binding.h.
#include "python/module/check_binding.h"

#include <pybind11/stl.h>

#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/kernel/impl_validation.h"
#include "gate/gate.h"
#include "impls/registry.h"
#include "properties/property.h"
#include "python/module/kernel_declaration.h"
#include "python/module/named_policies.h"
#include "python/module/python_kernel.h"
#include "ropecheck/names.h"

namespace ropecheck::python {
namespace {

py::dict family_dict(const FamilyStats& f) {
  py::dict d;
  d["cases"] = f.cases;
  d["passed"] = f.passed;
  d["failed"] = f.failed;
  d["skipped"] = f.skipped;
  d["worst_budget_units"] = f.worst_units;
  d["worst_ulps"] = f.worst_ulps;
  d["sum_budget_units"] = f.sum_units;
  d["elements"] = f.units_elements;
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
  // Conformance per position range (core/judge's bins): its elements, worst
  // error in budget units and in ulps of the storage dtype.
  py::dict bins;
  for (int b = 0; b < kPositionBins; ++b) {
    py::dict x;
    x["elements"] = i.bins[b].elements;
    x["worst_budget_units"] = i.bins[b].worst_units;
    x["worst_ulps"] = i.bins[b].worst_ulps;
    bins[py::str(position_bin_name(b))] = x;
  }
  d["position_ranges"] = bins;
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
  // Conformance skips by reason: outside the declared capabilities, or
  // declined by the kernel (ropecheck.Unsupported).
  py::dict skipped;
  for (const auto& [why, n] : i.skipped) skipped[py::str(why)] = n;
  d["skipped"] = skipped;
  d["policy"] = i.policy;
  d["errors"] = tracebacks;
  return d;
}

}  // namespace

void bind_check(py::module_& m) {
  m.def(
      "check",
      [](py::object fn, const std::string& name, const py::dict& declaration, const std::string& suite,
         std::uint64_t seed, std::optional<int> cases, std::optional<int> only_case,
         std::vector<std::string> properties, bool redraw, bool redraw_schemes) {
        GateOptions o;
        o.reproduce_environment = builtin_reproduce_environment();
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
        PythonKernel kernel(fn, declared_kernel(fn, name, declaration));
        if (const std::string bad = validate_impl_table(kernel.table()); !bad.empty())
          throw py::value_error("the kernel's declaration: " + bad);
        o.impls = {kernel.table()};
        const GateReport r = run_gate(o);  // C++ exceptions and Python errors propagate
        return report_dict(r, kernel.tracebacks());
      },
      py::arg("fn"), py::kw_only(), py::arg("name"), py::arg("declaration"), py::arg("suite"), py::arg("seed"),
      py::arg("cases"), py::arg("case"), py::arg("properties"), py::arg("redraw") = true,
      py::arg("redraw_schemes") = true);

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
