// SPDX-License-Identifier: MIT
// The domain of the error model: which declared policies it can budget
// (docs/ERROR_MODEL.md, "Declaring a policy"), each refusal naming its field
// and the bound, so a kernel author can act on it at load.
#include <cmath>
#include <cstdio>
#include <string>

#include "core/error_model/error_model.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/names.h"

namespace ropecheck {
namespace {

bool ulps_ok(double v) { return exactly_equal(v, 0.0) || (std::isfinite(v) && v >= 0.5 && v <= 16); }

bool policy_dtype_ok(std::uint32_t d) { return d < ROPECHECK_DTYPE_COUNT || d == ROPECHECK_DTYPE_OF_STORAGE; }

std::string got(double v) {
  char b[48];
  std::snprintf(b, sizeof b, " (got %.9g)", v);
  return b;
}

// Schemes a running fp32 product can form (ggml's CPU loop, every scheme
// llama.cpp has): a base (NTK-aware and dynamic NTK change it), one factor
// for all (linear), one per pair (LongRoPE, Llama 3.1's rope_freqs), or
// YaRN's mix of theta and theta / s. Explicit frequencies have no such form.
constexpr std::uint32_t kRunningProductSchemes = ((1u << ROPECHECK_SCHEME_COUNT) - 1) & ~(1u << ROPECHECK_SCHEME_EXPLICIT);

// 1.7's parts: the frequencies' form (the running product is an angle mode,
// formed on POWER alone), EXP_LOG's exp growth, the subnormal handling.
std::string check_ext2(const Policy& policy) {
  const ropecheck_policy_ext2_t& e = policy.ext2;
  if (e.struct_size != sizeof(ropecheck_policy_ext2_t))
    return "policy_ext2.struct_size: must be " + std::to_string(sizeof(ropecheck_policy_ext2_t)) + " (got " +
           std::to_string(e.struct_size) + ")";
  if (e.freq_form > ROPECHECK_FREQ_TABLE)
    return "policy_ext2.freq_form: must be 0 (power), 1 (exp_log) or 2 (table) (got " + std::to_string(e.freq_form) +
           ")";
  if (e.freq_form != ROPECHECK_FREQ_POWER && policy.base.angle_mode == ROPECHECK_ANGLE_F32_RUNNING_PRODUCT)
    return "policy_ext2.freq_form: angle_mode F32_RUNNING_PRODUCT forms its frequencies by powf (must be 0, power)";
  if (!(std::isfinite(e.freq_exp_slope) && e.freq_exp_slope >= 0 && e.freq_exp_slope <= 0x1p-16))
    return "policy_ext2.freq_exp_slope: must be in [0, 2^-16]" + got(e.freq_exp_slope);
  if (e.freq_exp_slope > 0 && e.freq_form != ROPECHECK_FREQ_EXP_LOG)
    return "policy_ext2.freq_exp_slope: belongs to freq_form EXP_LOG (must be 0 with " +
           std::string(e.freq_form == ROPECHECK_FREQ_POWER ? "power" : "table") + ")";
  if (e.subnormals > ROPECHECK_SUBNORMALS_FLUSHED)
    return "policy_ext2.subnormals: must be 0 (kept) or 1 (flushed) (got " + std::to_string(e.subnormals) + ")";
  if (e.reserved != 0) return "policy_ext2.reserved: must be 0";
  return {};
}

}  // namespace

std::string ErrorModel::check_policy(const Policy& policy, const ropecheck_caps_t* caps) {
  const ropecheck_policy_t& p = policy.base;
  const ropecheck_policy_ext_t& e = policy.ext;
  if (p.struct_size < sizeof(ropecheck_policy_t))
    return "policy.struct_size: must be >= " + std::to_string(sizeof(ropecheck_policy_t)) + " (got " +
           std::to_string(p.struct_size) + ")";
  if (e.struct_size != sizeof(ropecheck_policy_ext_t))
    return "policy_ext.struct_size: must be " + std::to_string(sizeof(ropecheck_policy_ext_t)) + " (got " +
           std::to_string(e.struct_size) + ")";
  if (p.freq_dtype != ROPECHECK_DTYPE_F32 && p.freq_dtype != ROPECHECK_DTYPE_F64)
    return "policy.freq_dtype: must be f32 or f64 (frequencies in bf16/fp16 are a known bug class)";
  if (p.angle_mode > ROPECHECK_ANGLE_F32_RUNNING_PRODUCT)
    return "policy.angle_mode: must be 0 (f32 product), 1 (f64) or 2 (f32 running product) (got " +
           std::to_string(p.angle_mode) + ")";
  if (p.angle_mode == ROPECHECK_ANGLE_F32_RUNNING_PRODUCT) {
    if (p.freq_dtype != ROPECHECK_DTYPE_F32)
      return "policy.freq_dtype: must be f32 with angle_mode F32_RUNNING_PRODUCT";
    if (caps && (caps->schemes & ~kRunningProductSchemes))
      return "caps.schemes: angle_mode F32_RUNNING_PRODUCT cannot form explicit frequencies (a per-pair list "
             "has no running-product form)";
  }
  if (p.sincos > ROPECHECK_SINCOS_FAST) return "policy.sincos: must be 0 (libm) or 1 (fast)";
  if (p.sincos == ROPECHECK_SINCOS_LIBM) {
    if (!ulps_ok(e.sincos_max_ulp))
      return "policy_ext.sincos_max_ulp: must be 0 (1 ulp) or in [0.5, 16]" + got(e.sincos_max_ulp);
    if (!exactly_equal(e.sincos_abs_error_range, 0.0) || !exactly_equal(e.sincos_phase_error_slope, 0.0))
      return "policy_ext.sincos_abs_error_range: a range and a phase slope belong to sincos FAST";
  } else {
    const double c0 = p.sincos_max_abs_error, range = e.sincos_abs_error_range, slope = e.sincos_phase_error_slope;
    if (!(std::isfinite(c0) && c0 > 0 && c0 < 0.01))
      return "policy.sincos_max_abs_error: must be in (0, 0.01) for a fast sincos" + got(c0);
    if (!(std::isfinite(range) && range >= 0))
      return "policy_ext.sincos_abs_error_range: must be finite and >= 0" + got(range);
    if (!(std::isfinite(slope) && slope >= 0 && slope <= 0x1p-10))
      return "policy_ext.sincos_phase_error_slope: must be in [0, 2^-10]" + got(slope);
    if (range > 0 && !(slope > 0))
      return "policy_ext.sincos_phase_error_slope: a range needs the growth beyond it (> 0); a kernel that reduces "
             "its argument first declares range 0";
    if (!exactly_equal(e.sincos_max_ulp, 0.0))
      return "policy_ext.sincos_max_ulp: belongs to sincos LIBM (must be 0 with FAST)";
  }
  if (!policy_dtype_ok(p.math_dtype))
    return "policy.math_dtype: must be f32, f16, bf16, f64 or OF_STORAGE (got " + std::to_string(p.math_dtype) + ")";
  if (!policy_dtype_ok(p.cache_dtype))
    return "policy.cache_dtype: must be f32, f16, bf16, f64 or OF_STORAGE (got " + std::to_string(p.cache_dtype) +
           ")";
  if (e.rotation_form > ROPECHECK_ROTATION_FMA)
    return "policy_ext.rotation_form: must be 0 (separate) or 1 (fma) (got " + std::to_string(e.rotation_form) + ")";
  if (!ulps_ok(e.freq_pow_max_ulp))
    return "policy_ext.freq_pow_max_ulp: must be 0 (1 ulp) or in [0.5, 16]" + got(e.freq_pow_max_ulp);
  if (e.positions_f32 > 1)
    return "policy_ext.positions_f32: must be 0 or 1 (got " + std::to_string(e.positions_f32) + ")";
  if (e.reserved != 0) return "policy_ext.reserved: must be 0";
  if (std::string bad = check_ext2(policy); !bad.empty()) return bad;
  if (caps && p.math_dtype != ROPECHECK_DTYPE_OF_STORAGE) {
    // The model takes the stored inputs as exact in the math dtype: a
    // narrower math dtype would round them first, a rounding it does not count.
    for (std::uint32_t s = 0; s < ROPECHECK_DTYPE_COUNT; ++s) {
      if (!(caps->dtypes & (1u << s)) || p.math_dtype == s || p.math_dtype == ROPECHECK_DTYPE_F64 ||
          (p.math_dtype == ROPECHECK_DTYPE_F32 && s != ROPECHECK_DTYPE_F64))
        continue;
      return "policy.math_dtype: " + std::string(dtype_name(static_cast<ropecheck_dtype_t>(p.math_dtype))) +
             " cannot hold every " + std::string(dtype_name(static_cast<ropecheck_dtype_t>(s))) +
             " input that caps.dtypes declares (declare OF_STORAGE, or a wider dtype)";
    }
  }
  return {};
}

}  // namespace ropecheck
