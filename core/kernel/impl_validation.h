// SPDX-License-Identifier: MIT
// Validation of an implementation's descriptor table before anything calls
// it: ABI version, sizes, name, capability bits, declared policy, and their
// consistency (a cache kernel needs build_cache and cannot take negative
// positions). Built-in tables pass it (a test says so); a plugin's table
// goes through it on load; the impl_table_fuzzer feeds it garbage.
#ifndef ROPECHECK_CORE_KERNEL_IMPL_VALIDATION_H_
#define ROPECHECK_CORE_KERNEL_IMPL_VALIDATION_H_

#include <string>

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

inline constexpr std::size_t kMaxImplNameLength = 64;
inline constexpr std::size_t kMaxImplDescriptionLength = 4096;
// Largest struct_size read from a table (a newer ABI's, with a zero tail).
inline constexpr std::size_t kMaxImplStructSize = 4096;

// Empty when the table is usable, else the first problem, naming the field
// and the bound ("caps.max_head_dim: must be in [2, 4096] (got 0)"). Reads
// no byte past the table's struct_size: a 1.0 table ends before abi_minor.
std::string validate_impl_table(const ropecheck_impl_t* impl);

// The table as this host's struct (call once validate_impl_table accepted
// it): the members an older table lacks read as 0, which is their 1.0
// meaning (a policy extension of struct_size 0 becomes the defaults), and
// struct_size is this host's. Everything after loading reads these copies.
ropecheck_impl_t host_table(const ropecheck_impl_t& table);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_IMPL_VALIDATION_H_
