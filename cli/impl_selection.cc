#include "cli/impl_selection.h"

#include <filesystem>
#include <stdexcept>

#include "core/isolation.h"
#include "core/plugin.h"
#include "impls/registry.h"

namespace ropecheck::cli {

ImplSelection select_impls(const SelectionArgs& a) {
  struct Known {
    const ropecheck_impl_t* impl;
    std::string plugin_path;  // "" for a built-in implementation
    bool forkable;
    bool default_set;
  };
  std::vector<Known> known;
  for (const std::string& path : a.plugins) {
    const Plugin p = load_plugin(path);
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
  IsolationOptions iso;
  iso.timeout_seconds = a.timeout_seconds;
  for (const Known& k : chosen) {
    s.impls.push_back(a.isolation && k.forkable ? isolate(k.impl, iso) : k.impl);
    if (!k.plugin_path.empty()) s.reproduce_args[k.impl->name] = "--plugin " + k.plugin_path;
  }
  return s;
}

}  // namespace ropecheck::cli
