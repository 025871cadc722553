// SPDX-License-Identifier: MIT
// The definitions of fuzz/differential/kernels_under_test.h.
#include "fuzz/differential/kernels_under_test.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "core/isolation/isolation.h"
#include "core/kernel/plugin.h"
#include "impls/registry.h"
#include "mutants/mutant_kernel.h"
#include "ropecheck/abi_caps.h"

namespace ropecheck::fuzz {
namespace {

[[noreturn]] void refuse(const std::string& why) {
  std::fprintf(stderr, "ropecheck differential fuzzer: %s\n", why.c_str());
  std::abort();
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

KernelsUnderTest kernels_under_test() {
  const std::string only = env("ROPECHECK_FUZZ_IMPL");
  const std::string plugin = env("ROPECHECK_FUZZ_PLUGIN");
  KernelsUnderTest k;
  if (!plugin.empty()) {
    std::vector<const ropecheck_impl_t*> all;
    try {
      all = load_plugin(plugin).impls;
    } catch (const PluginError& e) {
      refuse(std::string("ROPECHECK_FUZZ_PLUGIN: ") + e.what());
    }
    for (const ropecheck_impl_t* impl : all)
      if (only.empty() || only == impl->name) k.impls.push_back(impl);
    if (k.impls.empty()) refuse("ROPECHECK_FUZZ_IMPL=" + only + ": plugin " + plugin + " has no such kernel");
    // Isolated as the gate isolates a plugin by default: a kernel that
    // crashes, hangs or writes where it must not is a failing call named
    // by isolation, and the fuzzer's own process stays sound.
    const std::string mode = env("ROPECHECK_FUZZ_ISOLATION").empty() ? "worker" : env("ROPECHECK_FUZZ_ISOLATION");
    if (mode != "none") {
      IsolationOptions o;
      if (mode == "fork") o.mode = IsolationMode::kFork;
      else if (mode != "worker") refuse("ROPECHECK_FUZZ_ISOLATION=" + mode + ": worker, fork or none");
      for (const ropecheck_impl_t*& impl : k.impls) impl = isolate(impl, o);
      // A child gone before it read its call (it crashed, or was killed)
      // is isolation's finding, from EPIPE: SIGPIPE's default action ended
      // the fuzzer silently (status 141 a few calls into a fork-mode run).
      std::signal(SIGPIPE, SIG_IGN);
      k.isolation = mode;
    }
  } else if (only.empty()) {
    k.impls.assign(builtin_impls().begin(), builtin_impls().end());
  } else if (const ropecheck_impl_t* impl = find_impl(only)) {
    k.impls.push_back(impl);
  } else if (const ropecheck_impl_t* m = mutant::find_mutant(only)) {
    k.impls.push_back(m);
  } else {
    refuse("ROPECHECK_FUZZ_IMPL=" + only + ": no such implementation (`ropecheck list`, or a mutant_<bug>)");
  }
  const std::uint32_t axes = ROPECHECK_CAP_AXES_SECTIONS | ROPECHECK_CAP_AXES_INTERLEAVED | ROPECHECK_CAP_AXES_TABLE;
  for (const ropecheck_impl_t* impl : k.impls) k.multi_axis |= (impl->caps.flags & axes) != 0;
  return k;
}

}  // namespace ropecheck::fuzz
