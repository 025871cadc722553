// SPDX-License-Identifier: MIT
// The definitions of python/module/named_policies.h.
#include "python/module/named_policies.h"

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace ropecheck::python {

std::vector<golden::BudgetPolicy> named_policies() {
  std::vector<golden::BudgetPolicy> v(golden::budget_policies().begin(), golden::budget_policies().end());
  v.insert(v.end(), golden::declared_policies().begin(), golden::declared_policies().end());
  return v;
}

Policy policy_named(const std::string& name) {
  if (const golden::BudgetPolicy* p = golden::find_named_policy(name)) return p->policy;
  std::string known;
  for (const auto& p : named_policies()) known += std::string(known.empty() ? "" : ", ") + p.name;
  throw py::value_error("policy: unknown policy '" + name + "' (known: " + known + ")");
}

}  // namespace ropecheck::python
