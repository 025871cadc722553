// SPDX-License-Identifier: MIT
// Which implementations a command runs: the definitions of cli/impl_selection.h.
#include "cli/impl_selection.h"

#include <filesystem>
#include <stdexcept>

#include "core/isolation/isolation.h"
#include "core/kernel/plugin.h"
#include "impls/registry.h"

namespace ropecheck::cli {

ImplSelection select_impls(const SelectionArgs& a) {
  struct Known {
    const ropecheck_impl_t* impl;
    std::string plugin_path;  // "" for a built-in implementation
    bool forkable;
    bool default_set;
  };
  IsolationOptions iso;
  iso.timeout_seconds = a.timeout_seconds;
  iso.memory_limit_gib = a.memory_limit_gib;
  iso.mode = a.isolation_mode == "fork" ? IsolationMode::kFork : IsolationMode::kWorker;
  for (std::size_t i = 0; i < a.names.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (a.names[i] == a.names[j]) throw std::runtime_error("--impl: '" + a.names[i] + "' is given twice");
  for (std::size_t i = 0; i < a.plugins.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (std::filesystem::absolute(a.plugins[i]) == std::filesystem::absolute(a.plugins[j]))
        throw std::runtime_error("--plugin: '" + a.plugins[i] + "' is given twice");
  std::vector<Known> known;
  for (const std::string& path : a.plugins) {
    const Plugin p = load_plugin(path, iso);
    for (const auto* impl : p.impls) known.push_back({impl, std::filesystem::absolute(path).string(), true, true});
  }
  const bool plugins_only = a.names.empty() && !a.plugins.empty();
  if (!plugins_only)
    for (const RegisteredImpl& r : registered_impls())
      known.push_back({r.table, "", *r.in_process_only == '\0', r.default_set});
  std::vector<Known> chosen;
  if (a.names.empty()) {
    for (const Known& k : known)
      if (k.default_set) chosen.push_back(k);
  } else {
    for (const std::string& n : a.names) {
      bool found = false;
      for (const auto& k : known)
        if (n == k.impl->name) {
          if (found) throw std::runtime_error("--impl: '" + n + "' names more than one implementation");
          chosen.push_back(k);
          found = true;
        }
      if (!found) throw std::runtime_error("--impl: no implementation named '" + n + "' (see `ropecheck list`)");
    }
  }
  ImplSelection s;
  for (const Known& k : chosen) {
    s.impls.push_back(a.isolation && k.forkable ? isolate(k.impl, iso) : k.impl);
    if (!k.plugin_path.empty()) s.reproduce_args[k.impl->name] = "--plugin " + k.plugin_path;
  }
  return s;
}

}  // namespace ropecheck::cli
