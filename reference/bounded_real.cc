// SPDX-License-Identifier: MIT
// A real known to within a proven radius, for the fast exact frequencies.
#include "reference/bounded_real.h"

#include <cmath>
#include <cstdint>

#include "reference/dd_math.h"
#include "reference/error_free.h"
#include "ropecheck/float_compare.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace ropecheck::ref {
namespace {

using eft::DD;

// Every radius is computed in double and then widened: 2^-40 relative
// covers its own roundings, and the propagated part is also widened by
// 2^-50, which covers the MPFR path rounding a value that lies up to a
// radius away from the centre (2^-134 of it).
constexpr double kSlack = 1.0 + 0x1p-40;
constexpr double kPropSlack = 1.0 + 0x1p-50;
// Per operation: the double-double centre errs by <= eft::kOpRel (2^-102)
// of the exact result on the centres, and the MPFR path rounds its own
// result once (2^-134): 2^-101 of |centre| covers both.
constexpr double kStepRel = 0x1p-101;
// |hi + lo| <= |hi| (1 + 2^-52) for a normalised pair.
constexpr double kMagSlack = 1.0 + 0x1p-52;

DD dd(const BoundedReal& x) { return {x.hi(), x.lo()}; }
double mag(const BoundedReal& x) { return std::fabs(x.hi()) * kMagSlack; }

// The result of one operation: centre v, radius from the inputs' radii
// (`prop`) and the function's own error (`own`, absolute), plus kStepRel.
BoundedReal finish(DD v, double prop, double own = 0) {
  if (!std::isfinite(v.hi) || !std::isfinite(prop) || !std::isfinite(own)) throw Undecided{"overflow"};
  return BoundedReal::make(v.hi, v.lo, (prop * kPropSlack + own + kStepRel * std::fabs(v.hi)) * kSlack);
}

bool exact(const BoundedReal& x) { return x.rad() <= 0; }
bool is_zero(double v) { return exactly_equal(v, 0.0); }
// An exact value held in one double.
bool exact_double(const BoundedReal& x) { return exact(x) && is_zero(x.lo()); }
// An exact nonzero power of two (products by it are exact everywhere).
bool exact_pow2(const BoundedReal& x) {
  int e = 0;
  return exact_double(x) && std::isfinite(x.hi()) && exactly_equal(std::fabs(std::frexp(x.hi(), &e)), 0.5);
}
// An exact double-double result the MPFR path holds exactly too: its bits
// span at most 134 (Real's precision), i.e. lo is 0 or within 2^81 of hi.
bool fits_real(DD v) { return is_zero(v.lo) || std::ilogb(v.hi) - std::ilogb(v.lo) <= 81; }

// Sign of a - b for the exact values and the MPFR path's alike; throws
// when the radii overlap.
int compare(const BoundedReal& a, const BoundedReal& b) {
  const DD d = eft::sub(dd(a), dd(b));
  const double r = a.rad() + b.rad();
  // Exact operands: the double-double difference errs by a relative
  // amount below 1, so its sign (and whether it is 0) is the exact one.
  const double margin = r > 0 ? (r * kPropSlack + eft::kOpRel * std::fabs(d.hi)) * kSlack : 0.0;
  if (d.hi > margin) return 1;
  if (d.hi < -margin) return -1;
  if (r <= 0 && d.hi <= 0 && d.hi >= 0) return 0;
  throw Undecided{"comparison"};
}

}  // namespace

BoundedReal::BoundedReal(long v) : BoundedReal(static_cast<long long>(v)) {}

BoundedReal::BoundedReal(long long v) {
  // v = a 2^32 + b with |a| < 2^31 and 0 <= b < 2^32: both exact doubles,
  // and TwoSum makes the exact double-double.
  const double a = std::ldexp(static_cast<double>(v >> 32), 32);
  const double b = static_cast<double>(static_cast<std::uint64_t>(v) & 0xffffffffu);
  eft::two_sum(a, b, hi_, lo_);
}

BoundedReal BoundedReal::make(double hi, double lo, double rad) {
  BoundedReal r;
  r.hi_ = hi;
  r.lo_ = lo;
  r.rad_ = rad;
  return r;
}

BoundedReal& BoundedReal::operator+=(const BoundedReal& o) { return *this = *this + o; }

BoundedReal operator+(const BoundedReal& a, const BoundedReal& b) {
  if (exact_double(a) && exact_double(b)) {
    DD v;
    eft::two_sum(a.hi(), b.hi(), v.hi, v.lo);  // the exact sum
    return fits_real(v) ? BoundedReal::make(v.hi, v.lo, 0) : finish(v, 0);
  }
  return finish(eft::add(dd(a), dd(b)), a.rad() + b.rad());
}

BoundedReal operator-(const BoundedReal& a) { return BoundedReal::make(-a.hi(), -a.lo(), a.rad()); }
BoundedReal operator-(const BoundedReal& a, const BoundedReal& b) { return a + (-b); }

BoundedReal operator*(const BoundedReal& a, const BoundedReal& b) {
  if (exact_double(a) && exact_double(b)) {
    DD v;
    eft::two_prod(a.hi(), b.hi(), v.hi, v.lo);  // the exact 106-bit product, exact in MPFR too
    if (!std::isfinite(v.hi) || (!is_zero(v.hi) && std::fabs(v.hi) < 0x1p-900)) throw Undecided{"range"};
    return BoundedReal::make(v.hi, v.lo, 0);
  }
  // A product by an exact power of two (2 pi, 2 log b) is exact here and in
  // MPFR: the radius scales, nothing is rounded.
  if (exact_pow2(a) || exact_pow2(b)) {
    const double k = exact_pow2(a) ? a.hi() : b.hi();
    const BoundedReal& x = exact_pow2(a) ? b : a;
    const DD v{x.hi() * k, x.lo() * k};
    if (!std::isfinite(v.hi) || (!is_zero(v.hi) && std::fabs(v.hi) < 0x1p-900)) throw Undecided{"range"};
    return BoundedReal::make(v.hi, v.lo, x.rad() * std::fabs(k));
  }
  const double prop = mag(a) * b.rad() + mag(b) * a.rad() + a.rad() * b.rad();
  return finish(eft::mul(dd(a), dd(b)), prop);
}

BoundedReal operator/(const BoundedReal& a, const BoundedReal& b) {
  // |A/B - a/b| <= (ra + |a/b| rb) / (|b| - rb) for |A - a| <= ra, |B - b| <= rb.
  const double bl = std::fabs(b.hi()) / kMagSlack - b.rad() * kPropSlack;
  if (!(bl > 0)) throw Undecided{"division by a value whose sign is uncertain"};
  const DD q = eft::div(dd(a), dd(b));
  if (exact_double(a) && exact_double(b) && is_zero(q.lo)) {
    // An exact quotient (t = 0 or 1 in YaRN's ramp): q b = a exactly.
    double p, e;
    eft::two_prod(q.hi, b.hi(), p, e);
    if (exactly_equal(p, a.hi()) && is_zero(e)) return BoundedReal::make(q.hi, 0, 0);
  }
  const double prop = (a.rad() + std::fabs(q.hi) * kMagSlack * b.rad()) / bl;
  return finish(q, prop);
}

bool operator<(const BoundedReal& a, const BoundedReal& b) { return compare(a, b) < 0; }
bool operator>(const BoundedReal& a, const BoundedReal& b) { return compare(a, b) > 0; }
bool operator<=(const BoundedReal& a, const BoundedReal& b) { return compare(a, b) <= 0; }
bool operator>=(const BoundedReal& a, const BoundedReal& b) { return compare(a, b) >= 0; }
bool operator==(const BoundedReal& a, const BoundedReal& b) { return compare(a, b) == 0; }

BoundedReal log(const BoundedReal& x) {
  // pow(base, y) takes the log of the same base for every pair: the last
  // argument's log is kept (per thread; the computation is deterministic).
  struct Memo {
    double hi = 0, lo = 0, rad = -1;
    BoundedReal value;
  };
  thread_local Memo memo;
  if (exactly_equal(memo.hi, x.hi()) && exactly_equal(memo.lo, x.lo()) && exactly_equal(memo.rad, x.rad()))
    return memo.value;
  // |log X - log x| <= rx / (x - rx) over the interval.
  const double xl = x.hi() / kMagSlack - x.rad() * kPropSlack;
  if (!(xl > 0) || !(std::fabs(std::log(x.hi())) < kMaxExpArg)) throw Undecided{"log argument"};
  DD v;
  double err;
  if (!log_dd(dd(x), &v, &err)) throw Undecided{"log"};
  memo = {x.hi(), x.lo(), x.rad(), finish(v, x.rad() / xl, err)};
  return memo.value;
}

BoundedReal pow(const BoundedReal& x, const BoundedReal& y) {
  // x^0 = 1 exactly, in MPFR too (pair 0's frequency b^0).
  if (exact(y) && is_zero(y.hi())) return BoundedReal(1.0);
  // exp(y log x) over the intervals: the product's radius r gives at most
  // e^r - 1 <= r (1 + r) relative; exp_dd adds kExpRel.
  const BoundedReal p = y * log(x);
  if (!(std::fabs(p.hi()) <= kMaxExpArg) || !(p.rad() <= 0x1p-30)) throw Undecided{"pow argument"};
  const DD v = exp_dd(dd(p));
  const double r = p.rad();
  return finish(v, mag(BoundedReal::make(v.hi, v.lo, 0)) * r * (1 + r) * (1 + kExpRel),
                mag(BoundedReal::make(v.hi, v.lo, 0)) * kExpRel);
}

BoundedReal sqrt(const BoundedReal& x) {
  // |sqrt X - sqrt x| <= rx / (2 sqrt(x - rx)).
  const double xl = x.hi() / kMagSlack - x.rad() * kPropSlack;
  if (!(xl > 0x1p-1000) || !(x.hi() < 0x1p1000)) throw Undecided{"sqrt argument"};
  const DD v = sqrt_dd(dd(x));
  return finish(v, x.rad() / (2 * std::sqrt(xl) / kMagSlack), std::fabs(v.hi) * kMagSlack * kSqrtRel);
}

BoundedReal floor(const BoundedReal& x) {
  if (!(std::fabs(x.hi()) < 0x1p50)) throw Undecided{"floor argument"};
  const double f = std::floor(x.hi());
  // d = x - f exactly: x.hi - f is a multiple of ulp(x.hi) in [0, 1).
  double dh, dl;
  eft::two_sum(x.hi() - f, x.lo(), dh, dl);
  const double r = x.rad() > 0 ? x.rad() * kSlack + 0x1p-60 : 0.0;
  // Lower and upper ends of d's interval, rounded outwards (|dl| <= 2^-53).
  const double d_lo = dh - std::fabs(dl) - r, d_hi = dh + std::fabs(dl) + r;
  const bool exact_d = r <= 0;
  if (exact_d ? (dh > 0 || (dh >= 0 && dl >= 0)) && dh < 1 : d_lo > 0 && d_hi < 1) return BoundedReal(f);
  if (exact_d ? dh <= 0 && (dh < 0 || dl < 0) : d_hi < 0 && d_lo > -1) return BoundedReal(f - 1);
  throw Undecided{"floor"};
}

BoundedReal ceil(const BoundedReal& x) { return -floor(-x); }

template <>
BoundedReal two_pi_of<BoundedReal>() {
  // 2 pi as the nearest double-double; the radius covers the exact 2 pi and
  // the MPFR path's 2 RN_134(pi) alike.
  return BoundedReal::make(0x1.921fb54442d18p+2, 0x1.1a62633145c07p-52, 0x1p-100);
}

template Frequencies<BoundedReal> compute_frequencies<BoundedReal>(const FreqSpec&, int);

}  // namespace ropecheck::ref
