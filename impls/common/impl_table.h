// The capabilities every scalar kernel shares, so each kernel file states
// only what differs (its layouts, policy and entry points).
#ifndef ROPECHECK_IMPLS_COMMON_IMPL_TABLE_H_
#define ROPECHECK_IMPLS_COMMON_IMPL_TABLE_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

inline constexpr std::uint32_t kAllSchemes = (1u << ROPECHECK_SCHEME_COUNT) - 1u;
inline constexpr std::uint32_t kStorageDtypes =
    (1u << ROPECHECK_DTYPE_F32) | (1u << ROPECHECK_DTYPE_F16) | (1u << ROPECHECK_DTYPE_BF16);
inline constexpr std::uint32_t kBothLayouts =
    (1u << ROPECHECK_LAYOUT_INTERLEAVED) | (1u << ROPECHECK_LAYOUT_HALF_SPLIT);
inline constexpr std::uint32_t kCommonFlags =
    ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_INVERSE |
    ROPECHECK_CAP_PARTIAL_ROTARY | ROPECHECK_CAP_POS_INT32 | ROPECHECK_CAP_POS_INT64;

constexpr ropecheck_caps_t scalar_caps(std::uint32_t layouts, std::uint32_t extra_flags) {
  return ropecheck_caps_t{sizeof(ropecheck_caps_t), layouts, kStorageDtypes, kAllSchemes, 4096,
                          kCommonFlags | extra_flags};
}

constexpr ropecheck_policy_t policy(ropecheck_dtype_t freq_dtype, ropecheck_angle_mode_t angle,
                                    ropecheck_dtype_t cache_dtype) {
  return ropecheck_policy_t{sizeof(ropecheck_policy_t), static_cast<std::uint32_t>(freq_dtype),
                            static_cast<std::uint32_t>(angle), ROPECHECK_SINCOS_LIBM, 0.0,
                            ROPECHECK_DTYPE_F32, static_cast<std::uint32_t>(cache_dtype)};
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_COMMON_IMPL_TABLE_H_
