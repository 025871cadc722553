// SPDX-License-Identifier: MIT
// External implementations loaded from a shared library that exports the
// versioned C ABI entry point (ropecheck_get_impls, kernel_abi.h). Loading
// checks everything before any kernel runs: the library opens, exports the
// entry point, serves this host's ABI version, and every table it returns
// passes validate_impl_table (sizes, version, names, coherent capabilities).
// All of that runs first in a child process (core/isolation/child_process.h): a
// library whose constructors or ropecheck_get_impls crash, call exit() or
// hang is refused naming the cause. Only then is it loaded here, inside a
// HostGuard: should it behave differently the second time, ropecheck still
// stops with a message and status 2, never 0.
#ifndef ROPECHECK_CORE_KERNEL_PLUGIN_H_
#define ROPECHECK_CORE_KERNEL_PLUGIN_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "core/isolation/isolation.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Plugin {
  std::string path;
  std::vector<const ropecheck_impl_t*> impls;  // valid while the process lives
};

// Throws PluginError naming the path and what is wrong. The library stays
// loaded for the life of the process (kernels hold pointers into it).
// `probe` bounds the child that tries the library first.
Plugin load_plugin(const std::string& path, const IsolationOptions& probe = {});

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_PLUGIN_H_
