// SPDX-License-Identifier: MIT
// The plugin entry point of one mutant or misbehaving kernel, chosen at
// build time (mutants/CMakeLists.txt): -DROPECHECK_MUTANT=<bug> or
// -DROPECHECK_MISBEHAVE=<misbehaviour>. Built as a MODULE with hidden
// visibility, as an external plugin would be. Three misbehaviours live
// here, in what the loader runs: no entry point, exit() in a constructor, a
// crash inside ropecheck_get_impls.
#include <cstdint>
#include <cstdlib>

#include "mutants/mutant_kernel.h"


#if defined(ROPECHECK_MISBEHAVE_NO_ENTRY)
// Exports no ropecheck_get_impls: the loader must refuse the library by name.
extern "C" __attribute__((visibility("default"))) int ropecheck_not_the_entry_point() { return 0; }
#else
namespace {

const ropecheck_impl_t* chosen() {
#if defined(ROPECHECK_MUTANT)
  return ropecheck::mutant::mutant_impl(ropecheck::mutant::Bug::ROPECHECK_MUTANT);
#elif defined(ROPECHECK_MISBEHAVE)
  return ropecheck::mutant::misbehaving_impl(ropecheck::mutant::Misbehaviour::ROPECHECK_MISBEHAVE);
#else
#error "build with -DROPECHECK_MUTANT=<bug> or -DROPECHECK_MISBEHAVE=<misbehaviour>"
#endif
}

#if defined(ROPECHECK_MISBEHAVE_EXIT_AT_LOAD)
// Runs at dlopen, before ropecheck can look at the library.
__attribute__((constructor)) void leave_at_load() { std::exit(0); }
#endif

}  // namespace

extern "C" __attribute__((visibility("default"))) const ropecheck_impl_t* const* ropecheck_get_impls(
    std::uint32_t host_abi_version, std::uint32_t* count) {
  static const ropecheck_impl_t* table[1];
#if defined(ROPECHECK_MISBEHAVE_CRASH_AT_LOAD)
  volatile std::uintptr_t null = 0;  // an address the compiler cannot see through
  *reinterpret_cast<volatile std::uint32_t*>(null) = host_abi_version;
#endif
  if (host_abi_version != ROPECHECK_ABI_VERSION) return nullptr;
  table[0] = chosen();
  *count = 1;
  return table;
}
#endif
