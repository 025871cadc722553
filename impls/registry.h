// SPDX-License-Identifier: MIT
// Built-in implementations under test. Properties, the fuzzers and the
// golden verifier iterate this list; none includes a kernel's header.
#ifndef ROPECHECK_IMPLS_REGISTRY_H_
#define ROPECHECK_IMPLS_REGISTRY_H_

#include <span>
#include <string>
#include <string_view>

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// A registry row: the kernel's table and what the tools must know about it
// that the C ABI does not say.
struct RegisteredImpl {
  const ropecheck_impl_t* table;
  // Empty when the kernel may be called in a forked child; else why it must
  // run in the process that registered it (a CUDA context created before
  // fork() is unusable in the child).
  const char* in_process_only = "";
  // In the default set (what `ropecheck check` runs without --impl). The
  // policy kernels (impls/policy/) are not: they are selected by name and
  // gated by their own test, to keep the default gate's time.
  bool default_set = true;
};

// Every built-in row: the default set, then the policy kernels.
std::span<const RegisteredImpl> registered_impls();
// The tables of the default set, in registry order.
std::span<const ropecheck_impl_t* const> builtin_impls();
// nullptr when no built-in implementation has that name.
const RegisteredImpl* find_registered(std::string_view name);
const ropecheck_impl_t* find_impl(std::string_view name);

// What a reproduce line must set first for the built-in kernels to take the
// path this run takes: "ROPECHECK_SIMD_TARGET=AVX2 " when the run is pinned
// to a SIMD target (a value that names no target is not echoed into a
// command), else "".
std::string builtin_reproduce_environment();
// The threads a built-in kernel splits one call's tokens over when the call
// leaves it the choice (check --threads; the SIMD kernels').
void set_builtin_kernel_threads(int threads);

}  // namespace ropecheck

#endif  // ROPECHECK_IMPLS_REGISTRY_H_
