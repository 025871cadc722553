// cos and sin of an angle held as a double-double, to about 2^-100 with a
// proven bound, for the fast exact reference (fast_rotation.h): what lets it
// decide RN(cos a) and the rotation's roundings without MPFR for almost
// every (position, pair). docs/REFERENCE.md, "Sine and cosine", derives the
// bound; fast_reference_test checks it against MPFR.
#ifndef ROPECHECK_REFERENCE_FAST_TRIG_H_
#define ROPECHECK_REFERENCE_FAST_TRIG_H_

#include "reference/error_free.h"

namespace ropecheck::ref {

// Largest |angle| the bound below is proven for: the reduction's k < 2^42
// keeps every product k * (pi/2)_i exact as a double-double.
inline constexpr double kMaxFastAngle = 0x1p41;

struct SinCos {
  eft::DD c, s;  // normalised: hi = RN(hi + lo)
};

// |c - cos(a)| and |s - sin(a)| are at most kSinCosError for the real
// a = angle.hi + angle.lo, |a| <= kMaxFastAngle (the caller checks).
SinCos sincos_dd(eft::DD angle);
inline constexpr double kSinCosError = 0x1p-97;

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_FAST_TRIG_H_
