// SPDX-License-Identifier: MIT
// Which implementations a command runs: built-in ones and those of any
// --plugin libraries, selected by --impl, each wrapped for crash isolation
// (a persistent worker per implementation, or a child per call with
// --isolation fork) unless --no-isolation. One place, so check, golden verify and mutants
// resolve names and plugins alike.
#ifndef ROPECHECK_CLI_IMPL_SELECTION_H_
#define ROPECHECK_CLI_IMPL_SELECTION_H_

#include <map>
#include <string>
#include <vector>

#include "core/isolation/child_process.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::cli {

struct ImplSelection {
  std::vector<const ropecheck_impl_t*> impls;
  std::map<std::string, std::string> reproduce_args;  // "--plugin PATH" per plugin kernel
};

struct SelectionArgs {
  std::vector<std::string> names;    // --impl; empty: every plugin kernel, or every built-in one
  std::vector<std::string> plugins;  // --plugin paths
  bool isolation = true;
  std::string isolation_mode = "worker";  // --isolation: "worker" or "fork"
  double timeout_seconds = 10;
  double memory_limit_gib = kDefaultMemoryLimitGiB;
};

// Throws std::runtime_error with a message for the user (unknown name, a
// name given twice, a plugin that does not load or validate).
ImplSelection select_impls(const SelectionArgs& a);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_IMPL_SELECTION_H_
