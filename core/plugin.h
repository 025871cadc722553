// External implementations loaded from a shared library that exports the
// versioned C ABI entry point (ropecheck_get_impls, kernel_abi.h). Loading
// checks everything before any kernel runs: the library opens, exports the
// entry point, serves this host's ABI version, and every table it returns
// passes validate_impl_table (sizes, version, names, coherent capabilities).
#ifndef ROPECHECK_CORE_PLUGIN_H_
#define ROPECHECK_CORE_PLUGIN_H_

#include <stdexcept>
#include <string>
#include <vector>

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
Plugin load_plugin(const std::string& path);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_PLUGIN_H_
