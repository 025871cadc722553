// SPDX-License-Identifier: MIT
// The definitions of gate/policy_text.h.
#include "gate/policy_text.h"

#include <cstdio>

#include "ropecheck/names.h"

namespace ropecheck {

std::string policy_text(const Policy& policy) {
  const ropecheck_policy_t& p = policy.base;
  const ropecheck_policy_ext_t& e = policy.ext;
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return std::string(b);
  };
  std::string s = "freq " + std::string(dtype_name(static_cast<ropecheck_dtype_t>(p.freq_dtype)));
  const ropecheck_policy_ext2_t& e2 = policy.ext2;
  if (e2.freq_form != ROPECHECK_FREQ_POWER) s += " " + std::string(freq_form_name(e2.freq_form));
  if (e.freq_pow_max_ulp > 0)
    s += std::string(e2.freq_form == ROPECHECK_FREQ_EXP_LOG ? " (exp/log " : " (pow ") + num(e.freq_pow_max_ulp) +
         " ulp" + (e2.freq_exp_slope > 0 ? " + " + num(e2.freq_exp_slope) + " |x|" : std::string()) + ")";
  else if (e2.freq_exp_slope > 0)
    s += " (exp 1 ulp + " + num(e2.freq_exp_slope) + " |x|)";
  s += ", angle " + std::string(angle_mode_name(p.angle_mode));
  if (e.positions_f32) s += " of fp32 positions";
  if (p.sincos == ROPECHECK_SINCOS_FAST) {
    s += ", fast sincos (<= " + num(p.sincos_max_abs_error) + " abs";
    if (e.sincos_abs_error_range > 0) s += " for |x| <= " + num(e.sincos_abs_error_range);
    if (e.sincos_phase_error_slope > 0) s += ", phase error <= " + num(e.sincos_phase_error_slope) + " |x|";
    s += ")";
  } else {
    s += ", libm sincos (" + num(e.sincos_max_ulp > 0 ? e.sincos_max_ulp : 1.0) + " ulp)";
  }
  s += ", math " + std::string(policy_dtype_name(p.math_dtype)) + " " +
       std::string(rotation_form_name(e.rotation_form));
  s += ", cos/sin " + std::string(policy_dtype_name(p.cache_dtype));
  if (e2.subnormals == ROPECHECK_SUBNORMALS_FLUSHED) s += ", subnormals flushed";
  return s;
}

}  // namespace ropecheck
