#include "impl_selection.h"

#include <filesystem>
#include <stdexcept>

#include "ropecheck/isolation.h"
#include "ropecheck/plugin.h"
#include "ropecheck/registry.h"

namespace ropecheck::cli {

ImplSelection select_impls(const SelectionArgs& a) {
  std::vector<std::pair<const ropecheck_impl_t*, std::string>> known;  // impl, plugin path or ""
  for (const std::string& path : a.plugins) {
    const Plugin p = load_plugin(path);
    for (const auto* impl : p.impls)
      known.emplace_back(impl, std::filesystem::absolute(path).string());
  }
  const bool plugins_only = a.names.empty() && !a.plugins.empty();
  if (!plugins_only)
    for (const auto* impl : builtin_impls()) known.emplace_back(impl, "");
  std::vector<std::pair<const ropecheck_impl_t*, std::string>> chosen;
  if (a.names.empty()) {
    chosen = known;
  } else {
    for (const std::string& n : a.names) {
      bool found = false;
      for (const auto& k : known)
        if (n == k.first->name) {
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
  for (const auto& [impl, path] : chosen) {
    s.impls.push_back(a.isolation ? isolate(impl, iso) : impl);
    if (!path.empty()) s.reproduce_args[impl->name] = "--plugin " + path;
  }
  return s;
}

}  // namespace ropecheck::cli
