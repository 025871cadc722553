// SPDX-License-Identifier: MIT
// A model of CUDA's __sinf / __cosf (__sincosf) for machines without a GPU,
// so a kernel that calls them on its raw angle can be judged on the CPU.
//
// What it rests on:
//  - CUDA C++ Programming Guide, Mathematical Functions appendix, table
//    "Single-Precision Floating-Point Intrinsic Functions": "__sinf(x): For x
//    in [-pi, pi], the maximum absolute error is 2^-21.41, and larger
//    otherwise"; "__cosf(x): ... 2^-21.19, and larger otherwise";
//    "__sincosf: Same as __sinf(x) and __cosf(x)".
//  - The code nvcc emits for __sinf on sm_70 and later (public SASS
//    listings): FMUL.RZ t = x * 0.15915493667125701904 (fl32(1/(2 pi))),
//    then MUFU.SIN of t in revolutions (MUFU.COS for __cosf). The only range
//    reduction is that truncated product by a constant 4.03e-8 (relative)
//    short of 1/(2 pi): the argument used is x + d with
//    |d| <= |x| (|1 - 2 pi K| + 2 pi K 2^-23) = 1.5955e-7 |x| (a phase error
//    growing with |x|, the same for sin and cos).
// The model: fl32(sin(2 pi frac(t)) + e(t)) with t = RZ32(x K) and the unit's
// own error e a deterministic pseudo-random function of t, |e| <= 2^-24.5
// (sin) and 2^-23 (cos), and e(0) = 0 (sin 0 = 0 and cos 0 = 1 exactly, as
// a table-based unit returns them): amplitudes for which the whole stays
// within the documented bounds on [-pi, pi] (max 2^-21.42 and 2^-21.31, checked over
// every fp32 there in impls/test/fast_sincos_model_test.cc).
// Measured on an H200 (sm_90, 2026-11-26; bench/gpu/fast_sincos_sweep.cu,
// every fp32 with |x| < 2^24, figures in bench/RESULTS.md): the documented
// bounds hold on [-pi, pi] (worst 0.968 of them for sin, 0.966 for cos), and
// beyond pi the error reaches 0.999 of 2^-21.19 + 1.5955e-7 |x|, so the
// reduction above is what the hardware does and the slope is tight. The
// unit's own error there reaches 2^-21.5, more than the amplitudes here: the
// model is gentler than the hardware inside the same bounds, so a kernel
// simulated with it is judged against the right budget but meets less noise.
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_FAST_SINCOS_MODEL_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_FAST_SINCOS_MODEL_H_

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ropecheck/float_compare.h"
#include "ropecheck/numbers.h"

namespace ropecheck::impl::fast_sincos {

inline constexpr float kInvTwoPi = 0.15915493667125701904f;  // fl32(1/(2 pi)), 0x3e22f983
// CUDA's documented bounds on [-pi, pi] and the growth the reduction implies.
inline double documented_sin_error() { return std::exp2(-21.41); }
inline double documented_cos_error() { return std::exp2(-21.19); }
inline double phase_slope() {
  const double k = static_cast<double>(kInvTwoPi);
  return std::fabs(1.0 - kTwoPi * k) + kTwoPi * k * 0x1p-23;
}

// x * y rounded toward zero in fp32 (FMUL.RZ): the exact product of two
// floats fits a double (48 significant bits).
inline float mul_rz(float x, float y) {
  const double exact = static_cast<double>(x) * y;
  float r = static_cast<float>(exact);
  if (std::fabs(static_cast<double>(r)) > std::fabs(exact)) r = std::nextafter(r, 0.0f);
  return r;
}

// The unit's own error: a hash of t's bits (splitmix64's finaliser) scaled
// into [-amplitude, amplitude).
inline double unit_error(float t, std::uint64_t salt, double amplitude) {
  if (exactly_equal(t, 0.0f)) return 0.0;  // +-0
  std::uint32_t bits;
  std::memcpy(&bits, &t, sizeof bits);
  std::uint64_t z = (static_cast<std::uint64_t>(bits) << 8) ^ salt ^ 0x5DEECE66Dull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return amplitude * (2.0 * (static_cast<double>(z >> 11) * 0x1p-53) - 1.0);
}

// t - nearest integer, exact: the revolutions MUFU sees.
inline double revolutions(float t) {
  const double td = t;
  return td - std::nearbyint(td);
}

inline float sin(float x) {
  const float t = mul_rz(x, kInvTwoPi);
  return static_cast<float>(std::sin(kTwoPi * revolutions(t)) + unit_error(t, 1, 0x1p-24 / std::sqrt(2.0)));
}
inline float cos(float x) {
  const float t = mul_rz(x, kInvTwoPi);
  return static_cast<float>(std::cos(kTwoPi * revolutions(t)) + unit_error(t, 2, 0x1p-23));
}

}  // namespace ropecheck::impl::fast_sincos

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_FAST_SINCOS_MODEL_H_
