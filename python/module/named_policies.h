// SPDX-License-Identifier: MIT
// The policies a Python kernel declares by name (ropecheck.POLICIES): the
// golden catalog's, which golden files carry budgets for, then the ones
// only kernels declare (golden/catalog/catalog.h, declared_policies: a golden export
// carries one budget per catalog policy and per element; these add none).
#ifndef ROPECHECK_PYTHON_MODULE_NAMED_POLICIES_H_
#define ROPECHECK_PYTHON_MODULE_NAMED_POLICIES_H_

#include <string>
#include <vector>

#include "golden/catalog/catalog.h"

namespace ropecheck::python {

// The catalog's policies, then the declare-only ones, in ropecheck.POLICIES order.
std::vector<golden::BudgetPolicy> named_policies();
// The policy of that name; py::value_error naming the known ones when none.
Policy policy_named(const std::string& name);

}  // namespace ropecheck::python

#endif  // ROPECHECK_PYTHON_MODULE_NAMED_POLICIES_H_
