// SPDX-License-Identifier: MIT
// A real known to within a proven radius: a double-double value and a bound
// on its distance to both the exact real and the value the MPFR path
// (Real, 134 bits, every operation rounded once) computes for the same
// expression. compute_frequencies<BoundedReal> runs the one set of
// frequency formulas (frequencies.h) at double-double speed for the fast
// exact reference; a comparison, floor or ceil the radius cannot decide
// throws Undecided, and the caller falls back to MPFR. Interval arithmetic
// in the style of Moore (1966), with the double-word error bounds of
// Joldes, Muller and Popescu (2017) for the centre.
#ifndef ROPECHECK_REFERENCE_BOUNDED_REAL_H_
#define ROPECHECK_REFERENCE_BOUNDED_REAL_H_

#include <cstdint>

#include "reference/frequencies.h"

namespace ropecheck::ref {

// A comparison (or floor, ceil, a log of a possibly non-positive value, an
// argument out of range) the bounds cannot decide.
struct Undecided {
  const char* what;
};

class BoundedReal {
 public:
  BoundedReal() = default;
  // Exact conversions (radius 0); integers beyond 2^53 are held as two
  // doubles, exactly.
  BoundedReal(double v) : hi_(v) {}  // NOLINT: numbers convert like Boost's do
  BoundedReal(int v) : hi_(v) {}     // NOLINT
  BoundedReal(long v);               // NOLINT
  BoundedReal(long long v);          // NOLINT
  static BoundedReal make(double hi, double lo, double rad);

  double hi() const { return hi_; }
  double lo() const { return lo_; }
  double rad() const { return rad_; }

  BoundedReal& operator+=(const BoundedReal& o);

 private:
  double hi_ = 0, lo_ = 0, rad_ = 0;
};

BoundedReal operator+(const BoundedReal& a, const BoundedReal& b);
BoundedReal operator-(const BoundedReal& a, const BoundedReal& b);
BoundedReal operator-(const BoundedReal& a);
BoundedReal operator*(const BoundedReal& a, const BoundedReal& b);
BoundedReal operator/(const BoundedReal& a, const BoundedReal& b);
// Comparisons hold for the exact values and the MPFR path's alike, or throw.
bool operator<(const BoundedReal& a, const BoundedReal& b);
bool operator>(const BoundedReal& a, const BoundedReal& b);
bool operator<=(const BoundedReal& a, const BoundedReal& b);
bool operator>=(const BoundedReal& a, const BoundedReal& b);
bool operator==(const BoundedReal& a, const BoundedReal& b);
BoundedReal pow(const BoundedReal& x, const BoundedReal& y);
BoundedReal log(const BoundedReal& x);
BoundedReal sqrt(const BoundedReal& x);
BoundedReal floor(const BoundedReal& x);
BoundedReal ceil(const BoundedReal& x);

// 2 pi, for the formulas that use it (frequencies.h).
template <>
BoundedReal two_pi_of<BoundedReal>();

extern template Frequencies<BoundedReal> compute_frequencies<BoundedReal>(const FreqSpec&, int);

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_BOUNDED_REAL_H_
