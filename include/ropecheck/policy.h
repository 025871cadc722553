/* Builders for a precision policy (ropecheck_policy_t), so a kernel table
 * states its arithmetic in one readable line. C++ only (constexpr); a C
 * kernel fills the struct by hand. */
#ifndef ROPECHECK_POLICY_H_
#define ROPECHECK_POLICY_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// sin/cos from libm (within 1 ulp of the angle's precision).
constexpr ropecheck_policy_t libm_policy(ropecheck_dtype_t freq_dtype, ropecheck_angle_mode_t angle,
                                         ropecheck_dtype_t math_dtype, ropecheck_dtype_t cos_sin_dtype) {
  return ropecheck_policy_t{sizeof(ropecheck_policy_t), static_cast<uint32_t>(freq_dtype),
                            static_cast<uint32_t>(angle), ROPECHECK_SINCOS_LIBM, 0.0,
                            static_cast<uint32_t>(math_dtype), static_cast<uint32_t>(cos_sin_dtype)};
}

// sin/cos from an approximation within max_abs_error of the exact values.
constexpr ropecheck_policy_t fast_sincos_policy(ropecheck_dtype_t freq_dtype, ropecheck_angle_mode_t angle,
                                                double max_abs_error, ropecheck_dtype_t math_dtype,
                                                ropecheck_dtype_t cos_sin_dtype) {
  return ropecheck_policy_t{sizeof(ropecheck_policy_t), static_cast<uint32_t>(freq_dtype),
                            static_cast<uint32_t>(angle), ROPECHECK_SINCOS_FAST, max_abs_error,
                            static_cast<uint32_t>(math_dtype), static_cast<uint32_t>(cos_sin_dtype)};
}

}  // namespace ropecheck

#endif  // ROPECHECK_POLICY_H_
