// Correct rounding (round to nearest, ties to even) of a high-precision value
// to fp64, fp32, fp16 and bf16, subnormals and overflow included. Written
// once over the format's (precision, emin, emax) so every dtype shares it.
#ifndef ROPECHECK_REFERENCE_ROUNDING_H_
#define ROPECHECK_REFERENCE_ROUNDING_H_

#include <algorithm>
#include <cmath>
#include <limits>

#include "ropecheck/dtype.h"
#include "reference/real.h"

namespace ropecheck::ref {

// Returns the value of v rounded to dtype t, as a double (every fp32, fp16
// and bf16 value is exactly a double). NaN stays NaN; the sign of zero kept.
template <class R>
double round_to_dtype(const R& v, ropecheck_dtype_t t) {
  if (isnan(v)) return std::numeric_limits<double>::quiet_NaN();
  const bool neg = signbit(v) != 0;
  if (isinf(v)) return neg ? -HUGE_VAL : HUGE_VAL;
  if (v == 0) return neg ? -0.0 : 0.0;
  const DtypeFormat f = dtype_format(t);
  const R a = abs(v);
  int e = 0;
  frexp(a, &e);  // a in [2^(e-1), 2^e)
  // Exponent of the quantum (ulp) at a: normal binade e-1, or the fixed
  // subnormal quantum below 2^emin.
  const int q = std::max(e - 1, f.emin) - (f.precision - 1);
  const R scaled = ldexp(a, -q);
  R n = floor(scaled);
  const R frac = scaled - n;
  const R half = R(1) / 2;
  if (frac > half || (frac == half && fmod(n, R(2)) != 0)) n += 1;
  const double mag = std::ldexp(n.template convert_to<double>(), q);
  const double r = mag > max_finite(t) ? HUGE_VAL : mag;
  return neg ? -r : r;
}

// Size of one ulp of dtype t at magnitude |x| (the quantum of the binade x
// lies in; the subnormal quantum below the smallest normal).
inline double ulp_of(double x, ropecheck_dtype_t t) {
  const DtypeFormat f = dtype_format(t);
  const double a = std::fabs(x);
  int e = 0;
  if (!(a > 0.0) || !std::isfinite(a)) {
    e = f.emin + 1;
  } else {
    std::frexp(a, &e);
  }
  return std::ldexp(1.0, std::max(e - 1, f.emin) - (f.precision - 1));
}

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_ROUNDING_H_
