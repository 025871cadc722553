// Built-in implementations under test. Properties, the fuzzers and the
// golden verifier iterate this list; none includes a kernel's header.
#ifndef ROPECHECK_REGISTRY_H_
#define ROPECHECK_REGISTRY_H_

#include <span>
#include <string_view>

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

std::span<const ropecheck_impl_t* const> builtin_impls();
// nullptr when no built-in implementation has that name.
const ropecheck_impl_t* find_impl(std::string_view name);

}  // namespace ropecheck

#endif  // ROPECHECK_REGISTRY_H_
