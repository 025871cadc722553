// SPDX-License-Identifier: MIT
// Rounding a value known only to within a bound: v = vh + vl (a
// double-double, vh = RN(v)) stands for any real within `err` of it. The
// rounding to double or to a storage dtype is returned only when no
// rounding boundary (a midpoint between neighbours, or the overflow
// threshold) lies within err of v: then every real in that interval, the
// exact value and the MPFR path's value alike, rounds the same way. Ziv's
// rounding test. Inline for the per-element loop: only translation units
// compiled with -ffp-contract=off include this header (reference/CMakeLists.txt).
#ifndef ROPECHECK_REFERENCE_CHECKED_ROUNDING_H_
#define ROPECHECK_REFERENCE_CHECKED_ROUNDING_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "reference/error_free.h"
#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::ref {

// A storage format's grid: round_to_dtype's (precision, emin, emax) and its
// largest finite value (2 - 2^(1-p)) 2^emax.
struct GridFormat {
  int precision, emin, emax;
  double max_finite;
};
// Smallest |vh| the two tests below accept: keeps double's grid normal with
// room for the scalings of fast_rotation.
inline constexpr double kMinCheckedValue = 0x1p-960;

namespace checked_detail {

// Slack for the rounding errors of the boundary tests themselves: every
// quantity in them is <= 1 when they can pass, so each errs by <= 2^-53.
inline constexpr double kTestSlack = 0x1p-40;

// round_to_dtype's grid per ropecheck_dtype_t (anything else is fp32 there
// too), checked against dtype_format at compile time below.
inline constexpr GridFormat kFormats[4] = {
    {24, -126, 127, 0x1.fffffep127},           // F32
    {11, -14, 15, 65504.0},                    // F16
    {8, -126, 127, 0x1.fep127},                // BF16
    {53, -1022, 1023, 0x1.fffffffffffffp1023}, // F64
};
constexpr double pow2_constexpr(int k) {
  double v = 1;
  for (; k > 0; --k) v *= 2;
  for (; k < 0; ++k) v /= 2;
  return v;
}
constexpr bool formats_match() {
  for (unsigned t = 0; t < 4; ++t) {
    const DtypeFormat d = dtype_format(static_cast<ropecheck_dtype_t>(t));
    const GridFormat& f = kFormats[t];
    if (f.precision != d.precision || f.emin != d.emin || f.emax != d.emax) return false;
    const double mf = (2.0 - pow2_constexpr(1 - d.precision)) * pow2_constexpr(d.emax - 1) * 2.0;
    if (f.max_finite < mf || f.max_finite > mf) return false;
  }
  return true;
}
static_assert(formats_match(), "kFormats must mirror dtype_format and round_to_dtype");

// nearbyint for 0 <= z, in the current (round to nearest even) mode, inline.
inline double round_half_even(double z) { return z < 0x1p52 ? (z + 0x1p52) - 0x1p52 : z; }

}  // namespace checked_detail

// The grid of a storage dtype.
inline const GridFormat& grid_format(ropecheck_dtype_t t) {
  return checked_detail::kFormats[static_cast<unsigned>(t) < 4 ? static_cast<unsigned>(t) : 0];
}

// The grid scaled by 2^k: rounding v 2^k to it and scaling back is rounding
// v to the format (max_finite beyond double's range becomes +inf).
inline GridFormat scaled_grid(const GridFormat& f, int k) {
  return {f.precision, f.emin + k, f.emax + k, f.max_finite * std::ldexp(1.0, k)};
}

// RN of v = vh + vl to the format, ties to even, subnormals and overflow to
// infinity as round_to_dtype does, when decided (kMinCheckedValue <= |vh| <=
// 2^1002): *out gets it and the call returns true. err = 0 means v is exact
// (no slack is needed then: an exact tie is decided by ties-to-even).
inline bool round_checked(double vh, double vl, double err, const GridFormat& f, double* out) {
  // Written with few data-dependent branches: a mispredicted one costs as
  // much as the whole test.
  const double a = std::fabs(vh);
  const double al = vl * std::copysign(1.0, vh);  // |v| = a + al
  const int e = eft::exponent_of(a);
  // Quantum of the format's grid at a: its binade, or the subnormal quantum
  // below 2^emin, or the top binade's above 2^emax (everything there rounds
  // to infinity).
  const int eb = std::clamp(e, f.emin, f.emax);
  const int qe = eb - (f.precision - 1);
  const double inv_q = eft::pow2(-qe);
  // All scalings by inv_q are exact (powers of two, normal results); z - n
  // is exact (a fraction of z's own bits).
  const double z = a * inv_q;
  double n = checked_detail::round_half_even(z);
  const double z_off = z - n, al_q = al * inv_q;
  double frac = z_off + al_q;  // v/q - n, error <= 2^-53 |frac|
  // vh is finer than this grid, so z can sit exactly halfway with vl on the
  // far side: then the nearest point is the other neighbour. frac -+ 1 is
  // exact (Sterbenz), so the error bound on frac stands.
  if (frac > 0.5) {
    n += 1;
    frac -= 1;
  } else if (frac < -0.5) {
    n -= 1;
    frac += 1;
  }
  // Below 2^e the grid is twice as fine when 2^e is a normal power of two,
  // so the midpoint under n = 2^(p-1) is a quarter quantum away (with
  // vh = RN(v) this cannot arise; kept so the test does not rest on it).
  const bool finer_below = (frac < 0) & (eb > f.emin) & exactly_equal(n, eft::pow2(f.precision - 1));
  // With err > 0 the test's own roundings need the slack. With err = 0 (v
  // exact) none is needed: frac = RN(exact) and RN is monotone, so
  // |frac| < limit (a double) implies the exact fraction is inside too.
  const double slack = err > 0 ? checked_detail::kTestSlack : 0.0;
  const double limit = (finer_below ? 0.25 : 0.5) - slack;
  // An exact tie: v exact (err = 0) and |v/q - n| = 1/2 exactly (frac's sum
  // lost nothing, so no rounding made it 1/2). n is then already the even
  // neighbour, the one IEEE's ties-to-even and round_to_dtype take: with
  // vl = 0, z itself is the midpoint and round_half_even chose; with vl != 0
  // the midpoint lies below vh's own ulp, so the grid is double's (scaled)
  // and vh = RN(v) is the even neighbour already. At position 0 with an
  // attention factor such as 1.25, a quarter of fp32 inputs land on a tie:
  // each was an MPFR fallback. (Under finer_below it is no tie: the grid is
  // twice as fine there.)
  bool exact_tie = false;
  if (err <= 0 && exactly_equal(std::fabs(frac), 0.5) && !finer_below) [[unlikely]] {
    double sum, lost;
    eft::two_sum(z_off, al_q, sum, lost);
    exact_tie = exactly_equal(lost, 0.0);
  }
  double mag = n * eft::pow2(qe);  // exact, or +inf past the double range
  mag = mag > f.max_finite ? HUGE_VAL : mag;
  *out = std::copysign(mag, vh);
  return exact_tie || std::fabs(frac) + err * inv_q < limit;
}

// RN to double of v = vh + vl (vh = RN(v) from TwoSum, normal, |vh| <=
// 2^1002): it is vh whenever no midpoint between doubles lies within err.
inline bool value_checked(double vh, double vl, double err) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(vh);
  const int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const bool toward_zero = std::signbit(vh) != std::signbit(vl);
  const bool pow2_below = ((bits & ((std::uint64_t{1} << 52) - 1)) == 0) & toward_zero;
  // Half an ulp (or a quarter), less a relative 2^-40 for the rounding of
  // |vl| + err (the product is exact: a 40-bit constant times 2^k, normal).
  const double limit = eft::pow2(pow2_below ? e - 54 : e - 53) * (1.0 - checked_detail::kTestSlack);
  return std::fabs(vl) + err < limit;
}

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_CHECKED_ROUNDING_H_
