// SPDX-License-Identifier: MIT
// The dtype of the cos/sin cache ropecheck passes in to a kernel granting
// CALLER_COS_SIN_CACHE (ABI 1.6) with a case: one of the dtypes the kernel
// declares it reads (its table's cos_sin_cache_dtypes; OF_STORAGE is the
// case's own storage dtype), drawn from the case's suite, seed and index on
// a stream of its own, so the plain case stays what it was and a reproduce
// line rebuilds the very cache. The kernel declares what it accepts; the
// case picks among that, and the error model budgets the dtype drawn
// (docs/ERROR_MODEL.md, E4c).
#ifndef ROPECHECK_CORE_CASES_COS_SIN_CACHE_CASE_H_
#define ROPECHECK_CORE_CASES_COS_SIN_CACHE_CASE_H_

#include <cstdint>
#include <vector>

#include "core/cases/cases.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The largest caller's cos/sin cache, in bytes of address space (rows *
// rotary_dim * 4, counted in fp32 whatever the dtype): its rows are indexed
// by position id, so an id past the limit / (4 rotary_dim) cannot be handed
// to such a kernel (core/kernel/caller_cos_sin_cache.h reserves the extent
// and writes only the named rows' pages). 4 TiB: int32's largest id with a
// rotary_dim of 512; under an address-space limit (ulimit -v) a sixteenth
// of it, so that the cache, its copies and the workers' arenas of --jobs
// threads fit (a position past that is redrawn or skipped, never a call
// that fails for want of memory).
inline constexpr std::size_t kMaxCallerCacheBytes = std::size_t{1} << 42;
std::size_t caller_cache_byte_limit();
// The largest position id + 1 a caller's cache of that size serves.
std::int64_t caller_cache_position_limit(int rotary_dim);

// The cache dtypes `declared` names for a case of storage dtype `storage`,
// each once, in the order f32, f16, bf16 (empty when it names none).
std::vector<ropecheck_dtype_t> declared_cache_dtypes(std::uint32_t declared, ropecheck_dtype_t storage);

// The dtype case c's caller cache is in for a kernel declaring `declared`
// (non-empty, validated: core/kernel/impl_validation): the case's own
// when it fixes one (Case::caller_cache_dtype), else drawn.
ropecheck_dtype_t caller_cache_dtype(const Case& c, std::uint32_t declared);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_COS_SIN_CACHE_CASE_H_
