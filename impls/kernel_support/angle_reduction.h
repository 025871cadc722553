// Reduction of an angle mod 2 pi in double, shared by the SIMD and CUDA
// on-the-fly kernels (host and device: ROPECHECK_HD).
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_ANGLE_REDUCTION_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_ANGLE_REDUCTION_H_

#include <cmath>

#include "ropecheck/dtype.h"

namespace ropecheck::impl {

// a - 2 pi round(a / 2 pi), three-part Cody-Waite. The parts were computed
// with exact rationals: hi and mid are 2 pi and its remainder rounded to 24
// bits, lo the rest rounded to double. k * hi and k * mid are exact for
// |k| < 2^29 (|a| < 3.3e9: int32 positions times frequencies <= 1); beyond,
// rounding k * hi moves the result by at most |a| 2^-53: a phase error the
// kernels that use it declare (kReductionRange, kReductionSlope; an exact
// angle, pair 0 at |p| <= 2^53, has no angle budget to hide it in).
inline constexpr double kReductionRange = 3.3e9;      // |a| below which the reduction is exact to 2^-48
inline constexpr double kReductionSlope = 0x1p-52;    // beyond: 2^-53 |a|, declared with a factor 2 margin
ROPECHECK_HD inline double reduce_two_pi(double a) {
  const double k = nearbyint(a * 0.15915494309189533577);  // 1 / (2 pi)
  return ((a - k * 0x1.921fb6p+2) - k * -0x1.777a5cp-23) - k * -0x1.ee59d9cceba4p-48;
}

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_ANGLE_REDUCTION_H_
