// SPDX-License-Identifier: MIT
// The capabilities the built-in kernels share (every scheme, storage dtype
// and the common flags), so each kernel file states only what differs: its
// layouts, extra flags, policy and entry points.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_IMPL_TABLE_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_IMPL_TABLE_H_

#include <cstdint>

#include "ropecheck/axes.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/policy.h"

namespace ropecheck::impl {

inline constexpr std::uint32_t kAllSchemes = (1u << ROPECHECK_SCHEME_COUNT) - 1u;
inline constexpr std::uint32_t kStorageDtypes =
    (1u << ROPECHECK_DTYPE_F32) | (1u << ROPECHECK_DTYPE_F16) | (1u << ROPECHECK_DTYPE_BF16);
inline constexpr std::uint32_t kBothLayouts =
    (1u << ROPECHECK_LAYOUT_INTERLEAVED) | (1u << ROPECHECK_LAYOUT_HALF_SPLIT);
inline constexpr std::uint32_t kCommonFlags =
    ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_INVERSE |
    ROPECHECK_CAP_PARTIAL_ROTARY | ROPECHECK_CAP_POS_INT32 | ROPECHECK_CAP_POS_INT64 | ROPECHECK_CAP_SEQ_STRIDES |
    ROPECHECK_CAP_BATCH_INVARIANT;

// ABI 1.3: every multi-axis assignment (per-axis frequencies granted apart).
inline constexpr std::uint32_t kAllAxisForms = kAxisAssignmentCaps;

constexpr ropecheck_caps_t standard_caps(std::uint32_t layouts, std::uint32_t extra_flags) {
  return ropecheck_caps_t{sizeof(ropecheck_caps_t), layouts, kStorageDtypes, kAllSchemes, 4096,
                          kCommonFlags | extra_flags};
}

// A kernel's table, its fields named (the ABI struct is positional), built
// against this header's ABI minor version.
constexpr ropecheck_impl_t kernel_table(
    const char* name, const char* description, ropecheck_caps_t caps, Policy policy,
    ropecheck_status_t (*apply)(void*, const ropecheck_apply_params_t*, char*, size_t),
    ropecheck_status_t (*build_cache)(void*, const ropecheck_freq_spec_t*, int32_t, int64_t, uint32_t, void*, char*,
                                      size_t) = nullptr,
    const char* (*target)(void*) = nullptr, void* ctx = nullptr) {
  return ropecheck_impl_t{sizeof(ropecheck_impl_t), ROPECHECK_ABI_VERSION, name, description, caps, policy.base, ctx,
                          apply, build_cache, target, ROPECHECK_ABI_VERSION_MINOR, 0u, policy.ext,
                          ropecheck_kv_policy_t{}, 0u, 0u, ropecheck_norm_policy_t{}, 0, 0u, 0u, policy.ext2,
                          ropecheck_quant_policy_t{}};
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_IMPL_TABLE_H_
