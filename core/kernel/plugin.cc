// SPDX-License-Identifier: MIT
// Loading external implementations from a shared library through the versioned C ABI entry point.
#include "core/kernel/plugin.h"

#include <dlfcn.h>

#include <cstdio>
#include <deque>
#include <filesystem>
#include <mutex>
#include <set>

#include "core/isolation/child_process.h"
#include "core/isolation/host_guard.h"
#include "core/kernel/impl_validation.h"

namespace ropecheck {
namespace {

// Host-normalised copies of every loaded table (core/kernel/impl_validation.h),
// alive for the process like the libraries they point into.
const ropecheck_impl_t* keep(const ropecheck_impl_t& t) {
  static std::mutex mu;
  static std::deque<ropecheck_impl_t> tables;
  std::lock_guard<std::mutex> lock(mu);
  return &tables.emplace_back(host_table(t));
}

}  // namespace

namespace {

Plugin load_here(const std::string& path, const std::string& abs, const std::string& where) {
  void* h = ::dlopen(abs.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw PluginError(where + "cannot load: " + ::dlerror());
  void* sym = ::dlsym(h, ROPECHECK_PLUGIN_ENTRY);
  if (!sym)
    throw PluginError(where + "missing symbol " + ROPECHECK_PLUGIN_ENTRY +
                      " (export it with extern \"C\" and default visibility; see examples/plugin)");
  auto entry = reinterpret_cast<ropecheck_get_impls_fn>(sym);
  std::uint32_t count = 0;
  const ropecheck_impl_t* const* table = entry(ROPECHECK_ABI_VERSION, &count);
  if (!table)
    throw PluginError(where + ROPECHECK_PLUGIN_ENTRY + " returned no table for host ABI version " +
                      std::to_string(ROPECHECK_ABI_VERSION) + " (the plugin was built for another version)");
  if (count == 0 || count > 256) throw PluginError(where + "count: must be in [1, 256] (got " + std::to_string(count) + ")");
  Plugin p;
  p.path = path;
  std::set<std::string> names;
  for (std::uint32_t i = 0; i < count; ++i) {
    const ropecheck_impl_t* impl = table[i];
    if (!impl) throw PluginError(where + "table[" + std::to_string(i) + "] is null");
    if (const std::string bad = validate_impl_table(impl); !bad.empty())
      throw PluginError(where + "table[" + std::to_string(i) + "]." + bad);
    if (!names.insert(impl->name).second)
      throw PluginError(where + "table[" + std::to_string(i) + "].name: '" + impl->name + "' appears twice");
    p.impls.push_back(keep(*impl));
  }
  return p;
}

}  // namespace

Plugin load_plugin(const std::string& path, const IsolationOptions& probe) {
  const std::string where = "plugin " + path + ": ";
  if (!std::filesystem::exists(path)) throw PluginError(where + "no such file");
  // An absolute path keeps dlopen from searching LD_LIBRARY_PATH for a
  // different library of the same name.
  const std::string abs = std::filesystem::absolute(path).string();
  ChildOptions o;
  o.timeout_seconds = probe.timeout_seconds;
  o.memory_limit_gib = probe.memory_limit_gib;
  o.check_leftovers = false;  // a library may start threads at load; the child is killed anyway
  const ChildRun run = run_in_child(o, [&](char* message, std::size_t n) {
    try {
      load_here(path, abs, where);
      return 0;
    } catch (const PluginError& e) {
      std::snprintf(message, n, "%s", e.what());
      return 1;
    }
  });
  if (!run.failure.empty())
    throw PluginError(where + "loading it (its constructors and ropecheck_get_impls, tried in a child process) " +
                      run.failure);
  if (run.status != 0) throw PluginError(run.message);
  const HostGuard guard("plugin " + path + " (while loading: its constructors or ropecheck_get_impls)", 2);
  return load_here(path, abs, where);
}

}  // namespace ropecheck
