// SPDX-License-Identifier: MIT
/* Builders for a precision policy (ropecheck_policy_t and, ABI 1.1, its
 * extension ropecheck_policy_ext_t; 1.7, ropecheck_policy_ext2_t), so a kernel table states its arithmetic
 * in one readable line. C++ only (constexpr, C++17 for nvcc); a C kernel
 * fills the structs by hand. */
#ifndef ROPECHECK_POLICY_H_
#define ROPECHECK_POLICY_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The extension with every field at its 1.0 meaning.
constexpr ropecheck_policy_ext_t policy_ext_defaults() {
  return ropecheck_policy_ext_t{sizeof(ropecheck_policy_ext_t), ROPECHECK_ROTATION_SEPARATE, 0.0, 0.0, 0.0, 0.0, 0u,
                                0u};
}

// 1.7's parts at their 1.6 meaning: POWER frequencies, subnormals kept.
constexpr ropecheck_policy_ext2_t policy_ext2_defaults() {
  return ropecheck_policy_ext2_t{sizeof(ropecheck_policy_ext2_t), ROPECHECK_FREQ_POWER, ROPECHECK_SUBNORMALS_KEPT,
                                 0u, 0.0};
}

// A whole declared policy: the 1.0 fields, the 1.1 extension and 1.7's.
struct Policy {
  ropecheck_policy_t base;
  ropecheck_policy_ext_t ext;
  ropecheck_policy_ext2_t ext2;
  constexpr Policy(const ropecheck_policy_t& b, const ropecheck_policy_ext_t& e = policy_ext_defaults(),
                   const ropecheck_policy_ext2_t& e2 = policy_ext2_defaults())
      : base(b), ext(e), ext2(e2) {}
};

// The policy a (host-normalised, see core/kernel/impl_validation.h) table declares:
// an extension with struct_size 0 is an older table's, all defaults.
constexpr Policy policy_of(const ropecheck_impl_t& t) {
  return Policy(t.policy, t.policy_ext.struct_size ? t.policy_ext : policy_ext_defaults(),
                t.policy_ext2.struct_size ? t.policy_ext2 : policy_ext2_defaults());
}

// sin/cos from libm (within 1 ulp of the angle's precision unless
// with_libm_ulps says otherwise).
constexpr ropecheck_policy_t libm_policy(ropecheck_dtype_t freq_dtype, ropecheck_angle_mode_t angle,
                                         uint32_t math_dtype, uint32_t cos_sin_dtype) {
  return ropecheck_policy_t{sizeof(ropecheck_policy_t), static_cast<uint32_t>(freq_dtype),
                            static_cast<uint32_t>(angle), ROPECHECK_SINCOS_LIBM, 0.0, math_dtype, cos_sin_dtype};
}

// sin/cos from an approximation within max_abs_error of the exact values
// (for every argument unless with_fast_range says otherwise).
constexpr ropecheck_policy_t fast_sincos_policy(ropecheck_dtype_t freq_dtype, ropecheck_angle_mode_t angle,
                                                double max_abs_error, uint32_t math_dtype,
                                                uint32_t cos_sin_dtype) {
  return ropecheck_policy_t{sizeof(ropecheck_policy_t), static_cast<uint32_t>(freq_dtype),
                            static_cast<uint32_t>(angle), ROPECHECK_SINCOS_FAST, max_abs_error, math_dtype,
                            cos_sin_dtype};
}

// 1.1 refinements, each returning the policy with one aspect stated.
constexpr Policy with_rotation(Policy p, ropecheck_rotation_form_t form) {
  p.ext.rotation_form = static_cast<uint32_t>(form);
  return p;
}
constexpr Policy with_libm_ulps(Policy p, double sincos_max_ulp, double freq_pow_max_ulp) {
  p.ext.sincos_max_ulp = sincos_max_ulp;
  p.ext.freq_pow_max_ulp = freq_pow_max_ulp;
  return p;
}
constexpr Policy with_fast_range(Policy p, double range, double phase_error_slope) {
  p.ext.sincos_abs_error_range = range;
  p.ext.sincos_phase_error_slope = phase_error_slope;
  return p;
}
constexpr Policy with_positions_f32(Policy p) {
  p.ext.positions_f32 = 1;
  return p;
}

// 1.7 refinements.
// The frequencies' form (ropecheck_freq_form_t); exp_slope: EXP_LOG's exp
// error per unit |argument| (0 for an exp within freq_pow_max_ulp alone).
constexpr Policy with_freq_form(Policy p, ropecheck_freq_form_t form, double exp_slope = 0.0) {
  p.ext2.freq_form = static_cast<uint32_t>(form);
  p.ext2.freq_exp_slope = exp_slope;
  return p;
}
// Subnormal inputs, intermediates and results flushed to zero (FTZ/DAZ).
constexpr Policy with_subnormals_flushed(Policy p) {
  p.ext2.subnormals = ROPECHECK_SUBNORMALS_FLUSHED;
  return p;
}

}  // namespace ropecheck

#endif  // ROPECHECK_POLICY_H_
