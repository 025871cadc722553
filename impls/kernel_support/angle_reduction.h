// SPDX-License-Identifier: MIT
// Reduction of an angle mod 2 pi in double, shared by the SIMD and CUDA
// on-the-fly kernels (host and device: ROPECHECK_HD).
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_ANGLE_REDUCTION_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_ANGLE_REDUCTION_H_

#include <cmath>

#include "ropecheck/dtype.h"

namespace ropecheck::impl {

// 2 pi as hi + mid + lo, the parts computed with exact rationals: hi and mid
// are 2 pi and its remainder rounded to 24 bits, lo the rest rounded to
// double. The SIMD kernels reduce with the same parts (and a quarter of them,
// exactly pi / 2, for the quadrant).
inline constexpr double kTwoPiHi = 0x1.921fb6p+2;
inline constexpr double kTwoPiMid = -0x1.777a5cp-23;
inline constexpr double kTwoPiLo = -0x1.ee59d9cceba4p-48;
inline constexpr double kInvTwoPi = 0.15915494309189533577;

// a - 2 pi round(a / 2 pi), three-part Cody-Waite. k * hi and k * mid are
// exact for |k| < 2^29 (|a| < 3.3e9: int32 positions times frequencies <= 1),
// and a - k * hi is exact (Sterbenz: the two lie within a factor 2); beyond,
// rounding k * hi moves the result by at most |a| 2^-53 (less where the
// products are fused: simd_sincos-inl.h): a phase error the kernels that use
// it declare (kReductionRange, kReductionSlope; an exact angle, pair 0 at
// |p| <= 2^53, has no angle budget to hide it in).
inline constexpr double kReductionRange = 3.3e9;      // |a| below which the reduction is exact to 2^-48
inline constexpr double kReductionSlope = 0x1p-52;    // beyond: 2^-53 |a|, declared with a factor 2 margin
ROPECHECK_HD inline double reduce_two_pi(double a) {
  const double k = nearbyint(a * kInvTwoPi);
  return ((a - k * kTwoPiHi) - k * kTwoPiMid) - k * kTwoPiLo;
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_ANGLE_REDUCTION_H_
