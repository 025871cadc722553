// SPDX-License-Identifier: MIT
// Names of the ABI's enumerations as they appear on the command line, in
// configs, reports and golden manifests, and their parsers (false on an
// unknown name). Header-only: kernels, the reference and the tools share it.
#ifndef ROPECHECK_NAMES_H_
#define ROPECHECK_NAMES_H_

#include <cstddef>
#include <iterator>
#include <string_view>

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The environment variable that pins the built-in SIMD kernels to one
// Highway target (impls/simd/simd_impls.h); a reproduce line carries it.
inline constexpr char kSimdTargetEnv[] = "ROPECHECK_SIMD_TARGET";

namespace names_detail {

inline constexpr std::string_view kDtypes[] = {"f32", "f16", "bf16", "f64"};
inline constexpr std::string_view kLayouts[] = {"interleaved", "half_split"};
inline constexpr std::string_view kSchemes[] = {"default", "linear",   "ntk",      "dynamic_ntk",
                                                "yarn",    "llama3",   "longrope", "explicit"};
inline constexpr std::string_view kAngleModes[] = {"f32 product", "f64 product", "f32 running product"};
inline constexpr std::string_view kRotationForms[] = {"separate", "fma"};
inline constexpr std::string_view kAxisAssignments[] = {"SECTIONS", "INTERLEAVED", "TABLE"};
inline constexpr std::string_view kAxisFrequencies[] = {"shared", "per_axis"};
inline constexpr std::string_view kFreqForms[] = {"power", "exp_log", "table"};
inline constexpr std::string_view kSubnormals[] = {"kept", "flushed"};

template <std::size_t N>
constexpr std::string_view name_of(unsigned v, const std::string_view (&names)[N]) {
  return v < N ? names[v] : std::string_view("?");
}

template <class E, std::size_t N>
bool parse(std::string_view s, const std::string_view (&names)[N], E* out) {
  for (std::size_t i = 0; i < N; ++i)
    if (s == names[i]) {
      *out = static_cast<E>(i);
      return true;
    }
  return false;
}

}  // namespace names_detail

constexpr std::string_view dtype_name(ropecheck_dtype_t t) {
  return names_detail::name_of(static_cast<unsigned>(t), names_detail::kDtypes);
}
constexpr std::string_view layout_name(ropecheck_layout_t l) {
  return names_detail::name_of(static_cast<unsigned>(l), names_detail::kLayouts);
}
constexpr std::string_view scheme_name(ropecheck_scheme_t s) {
  return names_detail::name_of(static_cast<unsigned>(s), names_detail::kSchemes);
}
// A policy's math or cos/sin dtype: a dtype, or "storage" (OF_STORAGE).
constexpr std::string_view policy_dtype_name(unsigned d) {
  return d == ROPECHECK_DTYPE_OF_STORAGE ? std::string_view("storage") : names_detail::name_of(d, names_detail::kDtypes);
}
constexpr std::string_view angle_mode_name(unsigned m) { return names_detail::name_of(m, names_detail::kAngleModes); }
constexpr std::string_view rotation_form_name(unsigned f) {
  return names_detail::name_of(f, names_detail::kRotationForms);
}
// 1.3: the multi-axis assignment, as the capability flag names it.
constexpr std::string_view axis_assignment_name(unsigned a) {
  return names_detail::name_of(a, names_detail::kAxisAssignments);
}
constexpr std::string_view axis_frequencies_name(unsigned f) {
  return names_detail::name_of(f, names_detail::kAxisFrequencies);
}
// 1.7: the frequencies' form and the subnormal handling.
constexpr std::string_view freq_form_name(unsigned f) { return names_detail::name_of(f, names_detail::kFreqForms); }
constexpr std::string_view subnormals_name(unsigned s) { return names_detail::name_of(s, names_detail::kSubnormals); }
inline bool parse_freq_form(std::string_view s, ropecheck_freq_form_t* out) {
  return names_detail::parse(s, names_detail::kFreqForms, out);
}
inline bool parse_subnormals(std::string_view s, ropecheck_subnormals_t* out) {
  return names_detail::parse(s, names_detail::kSubnormals, out);
}
inline bool parse_dtype(std::string_view s, ropecheck_dtype_t* out) {
  return names_detail::parse(s, names_detail::kDtypes, out);
}
inline bool parse_layout(std::string_view s, ropecheck_layout_t* out) {
  return names_detail::parse(s, names_detail::kLayouts, out);
}
inline bool parse_scheme(std::string_view s, ropecheck_scheme_t* out) {
  return names_detail::parse(s, names_detail::kSchemes, out);
}

}  // namespace ropecheck

#endif  // ROPECHECK_NAMES_H_
