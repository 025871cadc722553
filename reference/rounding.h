// SPDX-License-Identifier: MIT
// Correct rounding (round to nearest, ties to even) of a high-precision value
// to fp64, fp32, fp16 and bf16, subnormals and overflow included. Written
// once over the format's (precision, emin, emax) so every dtype shares it.
#ifndef ROPECHECK_REFERENCE_ROUNDING_H_
#define ROPECHECK_REFERENCE_ROUNDING_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
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
// lies in; the subnormal quantum below the smallest normal). Read from x's
// bits, not frexp/ldexp: the error model and the judge ask for it several
// times per element, and the two libm calls were a tenth of a gate run
// (ulp_of_by_libm, in the test, is the definition it is checked against).
[[gnu::always_inline]] inline double ulp_of(double x, const DtypeFormat& f) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
  int binade = f.emin;  // |x| in [2^binade, 2^(binade+1)); zero, infinities and NaN: emin
  if (biased != 0 && biased != 0x7ff) binade = biased - 1023;
  else if (biased == 0 && mantissa != 0) binade = 63 - std::countl_zero(mantissa) - 1074;  // mantissa * 2^-1074
  const int q = std::max(binade, f.emin) - (f.precision - 1);  // >= -1074
  const std::uint64_t out = q >= -1022 ? static_cast<std::uint64_t>(q + 1023) << 52 : std::uint64_t{1} << (q + 1074);
  double r = 0;
  std::memcpy(&r, &out, sizeof r);
  return r;
}
// The same for a dtype. The error model's hot path holds its dtypes'
// formats and calls the overload above (the switch per call was a fifth of
// a budget table's time, bench/budget_bench.cc).
[[gnu::always_inline]] inline double ulp_of(double x, ropecheck_dtype_t t) { return ulp_of(x, dtype_format(t)); }

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_ROUNDING_H_
