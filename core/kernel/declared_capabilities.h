// SPDX-License-Identifier: MIT
// Whether a case lies inside what an implementation declares it supports
// (its ABI table: layouts, dtypes, schemes and their restrictions, flags,
// multi-axis forms, strides, max_position) and inside the cos/sin cache
// limit ropecheck builds for a cache kernel. The gate skips, and counts by
// reason, what lies outside; core/kernel/kernel_call refuses to call it.
#ifndef ROPECHECK_CORE_KERNEL_DECLARED_CAPABILITIES_H_
#define ROPECHECK_CORE_KERNEL_DECLARED_CAPABILITIES_H_

#include <cstdint>
#include <string>

#include "core/cases/cases.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Largest cos/sin cache (elements) built for a cache kernel; cases that need
// more are outside its capabilities here. Default 2^24 (64 MiB of fp32); the
// differential fuzzer lowers it to keep executions fast.
void set_max_cache_elements(std::int64_t n);
std::int64_t max_cache_elements();
// The rows of the cos/sin cache a call on `c` hands `impl` (inside its
// capabilities): the case's cache_rows (core/cases/cases.h) where they fit
// the limit above and impl's max_position, else the positions' own.
std::int64_t cos_sin_cache_rows(const ropecheck_impl_t& impl, const Case& c);

// Why the case lies outside the implementation's declared capabilities (or
// the cache limit above); empty when the implementation must run it.
std::string outside_capabilities(const ropecheck_impl_t& impl, const Case& c);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_DECLARED_CAPABILITIES_H_
