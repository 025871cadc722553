// SPDX-License-Identifier: MIT
// Fills a [max_position, rotary_dim] fp32 cos|sin cache (row p: m*cos(p w_i)
// for i < d/2, then m*sin(p w_i)) from the engine's double frequencies, sin
// and cos in double within kCacheSincosAbsError (libm at a few angles per
// pair, one angle addition per entry: cache_builder.cc), then rounds once to
// fp32: what a careful engine does at load time. Shared by the cache
// kernels, which declare it (kCacheBuilderPolicy); validates its own arguments.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_CACHE_BUILDER_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_CACHE_BUILDER_H_

#include <cstddef>
#include <cstdint>

#include "ropecheck/kernel_abi.h"
#include "ropecheck/policy.h"

namespace ropecheck::impl {

// The builder's sin/cos error, absolute, in double (its derivation:
// cache_builder.cc), and the policy of a kernel that rotates with the table in
// fp32: frequencies and angles in double, this sin/cos (fast: an absolute
// bound, for every angle), fp32 math and table.
inline constexpr double kCacheSincosAbsError = 0x1p-49;
inline constexpr ropecheck_policy_t kCacheBuilderPolicy = fast_sincos_policy(
    ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, kCacheSincosAbsError, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32);

ropecheck_status_t build_cos_sin_cache_f64(const ropecheck_freq_spec_t* freq, std::int32_t rotary_dim,
                                           std::int64_t max_position, std::uint32_t cache_dtype, void* cache,
                                           char* err, std::size_t err_size);

// The same with the ABI's build_cache signature (ctx unused), for a table.
ropecheck_status_t build_cos_sin_cache_entry(void* ctx, const ropecheck_freq_spec_t* freq, std::int32_t rotary_dim,
                                             std::int64_t max_position, std::uint32_t cache_dtype, void* cache,
                                             char* err, std::size_t err_size);

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_CACHE_BUILDER_H_
