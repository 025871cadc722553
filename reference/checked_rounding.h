// Rounding a value known only to within a bound: v = vh + vl (a
// double-double, vh = RN(v)) stands for any real within `err` of it. The
// rounding to double or to a storage dtype is returned only when no
// rounding boundary (a midpoint between neighbours, or the overflow
// threshold) lies within err of v: then every real in that interval, the
// exact value and the MPFR path's value alike, rounds the same way. Ziv's
// rounding test; compiled with -ffp-contract=off (reference/CMakeLists.txt).
#ifndef ROPECHECK_REFERENCE_CHECKED_ROUNDING_H_
#define ROPECHECK_REFERENCE_CHECKED_ROUNDING_H_

#include "ropecheck/dtype.h"

namespace ropecheck::ref {

// A storage format's grid: round_to_dtype's (precision, emin, emax) and its
// largest finite value (2 - 2^(1-p)) 2^emax.
struct GridFormat {
  int precision, emin, emax;
  double max_finite;
};
const GridFormat& grid_format(ropecheck_dtype_t t);
// The grid scaled by 2^k: rounding v 2^k to it and scaling back is rounding
// v to the format (max_finite beyond double's range becomes +inf).
GridFormat scaled_grid(const GridFormat& f, int k);

// RN of v = vh + vl to the format, ties to even, subnormals and overflow to
// infinity as round_to_dtype does, when decided (kMinValue <= |vh| <=
// 2^1002): *out gets it and the call returns true. err = 0 means v is exact
// (no slack is needed then: an exact tie is decided by ties-to-even).
bool round_checked(double vh, double vl, double err, const GridFormat& f, double* out);

// RN to double of v = vh + vl (vh = RN(v) from TwoSum, normal, |vh| <=
// 2^1002): it is vh whenever no midpoint between doubles lies within err.
bool value_checked(double vh, double vl, double err);

// Smallest |vh| the two tests above accept: keeps double's grid normal with
// room for the scalings of fast_rotation.
inline constexpr double kMinCheckedValue = 0x1p-960;

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_CHECKED_ROUNDING_H_
