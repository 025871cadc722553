// SPDX-License-Identifier: MIT
// What a golden case carries besides its numbers: the flags that say why it
// exists (each defined once, with the bug class it targets, Wycheproof-style)
// and the named precision policies an error budget is exported for.
#ifndef ROPECHECK_GOLDEN_CATALOG_CATALOG_H_
#define ROPECHECK_GOLDEN_CATALOG_CATALOG_H_

#include <span>
#include <string>
#include <vector>

#include "core/cases/cases.h"
#include "core/kernel/kernel_call.h"
#include "core/judge/reference_result.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/policy.h"

namespace ropecheck::golden {

struct FlagInfo {
  const char* name;
  const char* description;  // what the case has
  const char* bug_class;    // which bug it is there to catch
};
std::span<const FlagInfo> flag_catalog();
// The flags of fused cases (a KV-cache write; manifest schema 4 lists them).
std::span<const FlagInfo> fused_flag_catalog();
// The flags of cases with a qk-norm or the caller's cos/sin cache
// (manifest schema 5 lists them).
std::span<const FlagInfo> fused_input_flag_catalog();
// Any catalogue's.
const FlagInfo* find_flag(const std::string& name);

// Flags that follow from a case's parameters and input bits. A generator may
// add RealModelConfig; every other flag is derived here, so the manifest
// never claims a property the case does not have.
std::vector<std::string> derive_flags(const Case& c, const QkBuffers& inputs);

struct BudgetPolicy {
  const char* name;  // tensor suffix: q_budget_<name>
  const char* description;
  Policy policy;
};
std::span<const BudgetPolicy> budget_policies();
// The policies only kernels declare, each naming the code it describes (the
// frameworks' arithmetic: docs/FRAMEWORKS.md): a golden export carries no
// budget for them. budget_policies() then these are the catalogue a Python
// kernel declares by name and `ropecheck.policies` / `check --policies` try.
std::span<const BudgetPolicy> declared_policies();
// Both, in that order; nullptr for an unknown name.
const BudgetPolicy* find_named_policy(const std::string& name);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_CATALOG_CATALOG_H_
