#include "reference/checked_rounding.h"

#include <algorithm>
#include <cmath>

#include "reference/error_free.h"
#include "ropecheck/float_compare.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace ropecheck::ref {
namespace {

using eft::exponent_of;
using eft::pow2;

// Slack for the rounding errors of the boundary tests themselves: every
// quantity in them is <= 1 when they can pass, so each errs by <= 2^-53.
constexpr double kTestSlack = 0x1p-40;

// round_to_dtype's grid per ropecheck_dtype_t (anything else is fp32 there
// too), checked against dtype_format at compile time below.
constexpr GridFormat kFormats[4] = {
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
double round_half_even(double z) { return z < 0x1p52 ? (z + 0x1p52) - 0x1p52 : z; }

}  // namespace

const GridFormat& grid_format(ropecheck_dtype_t t) {
  return kFormats[static_cast<unsigned>(t) < 4 ? static_cast<unsigned>(t) : 0];
}

GridFormat scaled_grid(const GridFormat& f, int k) {
  return {f.precision, f.emin + k, f.emax + k, f.max_finite * std::ldexp(1.0, k)};
}

bool round_checked(double vh, double vl, double err, const GridFormat& f, double* out) {
  // Written with few data-dependent branches: a mispredicted one costs as
  // much as the whole test.
  const double a = std::fabs(vh);
  const double al = vl * std::copysign(1.0, vh);  // |v| = a + al
  const int e = exponent_of(a);
  // Quantum of the format's grid at a: its binade, or the subnormal quantum
  // below 2^emin, or the top binade's above 2^emax (everything there rounds
  // to infinity).
  const int eb = std::clamp(e, f.emin, f.emax);
  const int qe = eb - (f.precision - 1);
  const double inv_q = pow2(-qe);
  // All scalings by inv_q are exact (powers of two, normal results); z - n
  // is exact (a fraction of z's own bits).
  const double z = a * inv_q;
  double n = round_half_even(z);
  double frac = (z - n) + al * inv_q;  // v/q - n, error <= 2^-53 |frac|
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
  const bool finer_below = (frac < 0) & (eb > f.emin) & exactly_equal(n, pow2(f.precision - 1));
  // With err > 0 the test's own roundings need the slack. With err = 0 (v
  // exact) none is needed: frac = RN(exact) and RN is monotone, so
  // |frac| < limit (a double) implies the exact fraction is inside too.
  const double slack = err > 0 ? kTestSlack : 0.0;
  const double limit = (finer_below ? 0.25 : 0.5) - slack;
  double mag = n * pow2(qe);  // exact, or +inf past the double range
  mag = mag > f.max_finite ? HUGE_VAL : mag;
  *out = std::copysign(mag, vh);
  return std::fabs(frac) + err * inv_q < limit;
}

bool value_checked(double vh, double vl, double err) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(vh);
  const int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const bool toward_zero = std::signbit(vh) != std::signbit(vl);
  const bool pow2_below = ((bits & ((std::uint64_t{1} << 52) - 1)) == 0) & toward_zero;
  // Half an ulp (or a quarter), less a relative 2^-40 for the rounding of
  // |vl| + err (the product is exact: a 40-bit constant times 2^k, normal).
  const double limit = pow2(pow2_below ? e - 54 : e - 53) * (1.0 - kTestSlack);
  return std::fabs(vl) + err < limit;
}

}  // namespace ropecheck::ref
