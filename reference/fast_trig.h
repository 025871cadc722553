// SPDX-License-Identifier: MIT
// cos and sin of an angle held as a double-double, to about 2^-83 with a
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
  eft::DD c, s;         // normalised: hi = RN(hi + lo)
  double err_c, err_s;  // bounds on |c - cos(a)| and |s - sin(a)|
};

// cos and sin of the real a = angle.hi + angle.lo, |a| <= kMaxFastAngle
// (the caller checks), with bounds of at most 2^-82.5 absolute, and
// relative (2^-99 of the value) for |a| < 1/128, where no table entry and
// no reduction intervene: a small sine is decided to the last bit too.
SinCos sincos_dd(eft::DD angle);

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_FAST_TRIG_H_
