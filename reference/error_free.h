// SPDX-License-Identifier: MIT
// Error-free transformations and double-double building blocks for the fast
// exact reference (fast_rotation, fast_trig, bounded_real). Only translation
// units compiled with -ffp-contract=off include this header (see
// reference/CMakeLists.txt): a product fused into a following add (FMA
// contraction) would break the identities below.
//
// Sources: Knuth's TwoSum (TAOCP vol. 2, 4.2.2), Dekker's product with
// Veltkamp's split (Numer. Math. 18, 1971), and the double-word error
// bounds of Joldes, Muller and Popescu, "Tight and rigorous error bounds for
// basic building blocks of double-word arithmetic" (ACM TOMS 44(2), 2017).
#ifndef ROPECHECK_REFERENCE_ERROR_FREE_H_
#define ROPECHECK_REFERENCE_ERROR_FREE_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ropecheck::ref::eft {

static_assert(std::numeric_limits<double>::is_iec559 && std::numeric_limits<double>::digits == 53);

// 2^k for k in the normal exponent range, without ldexp's call.
inline double pow2(int k) { return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52); }

// floor(log2 a) for a normal positive double.
inline int exponent_of(double a) {
  return static_cast<int>((std::bit_cast<std::uint64_t>(a) >> 52) & 0x7ff) - 1023;
}

// Veltkamp's split of a: a = h + l, each fitting in 26 bits (l's sign
// absorbs the 53rd), so products of halves are exact. Needs |a| < 2^995.
struct Halves {
  double h, l;
};
inline Halves halves(double a) {
  constexpr double kSplit = 134217729.0;  // 2^27 + 1
  const double t = kSplit * a;
  const double h = t - (t - a);
  return {h, a - h};
}

// Exact a*b = p + e when neither the product nor its error underflows or
// overflows. With hardware FMA one fused op; otherwise Dekker's product from
// precomputed halves (the default x86-64 build has no FMA, and libm's fma is
// a call there).
inline void two_prod(double a, Halves as, double b, Halves bs, double& p, double& e) {
  p = a * b;
#if defined(__FMA__) || defined(__FP_FAST_FMA)
  (void)as;
  (void)bs;
  e = std::fma(a, b, -p);
#else
  e = ((as.h * bs.h - p) + as.h * bs.l + as.l * bs.h) + as.l * bs.l;
#endif
}
inline void two_prod(double a, double b, double& p, double& e) { two_prod(a, halves(a), b, halves(b), p, e); }

// Knuth's TwoSum: exact a + b = s + e for any finite a, b (no ordering
// needed, which matters under cancellation).
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

// Fast2Sum (Dekker): exact when |a| >= |b| (or a = 0).
inline void fast_two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  e = b - (s - a);
}

// A double-double (double-word) number hi + lo with |lo| <= ulp(hi)/2.
struct DD {
  double hi = 0, lo = 0;
};

// Unit roundoff of double, u = 2^-53; the bounds below are in u^2 = 2^-106.
inline constexpr double kU2 = 0x1p-106;

// JMP 2017, Algorithm 6 (AccurateDWPlusDW): relative error <= 3u^2 / (1 - 4u)
// < 3.0000001 u^2, for any signs.
inline DD add(DD x, DD y) {
  double sh, sl, th, tl;
  two_sum(x.hi, y.hi, sh, sl);
  two_sum(x.lo, y.lo, th, tl);
  sl += th;
  fast_two_sum(sh, sl, sh, sl);
  sl += tl;
  DD r;
  fast_two_sum(sh, sl, r.hi, r.lo);
  return r;
}
inline DD neg(DD x) { return {-x.hi, -x.lo}; }

// JMP 2017, Algorithm 4 (DWPlusFP): relative error <= 2u^2 / (1 - 2u).
inline DD add(DD x, double y) {
  double sh, sl;
  two_sum(x.hi, y, sh, sl);
  const double v = x.lo + sl;
  DD r;
  fast_two_sum(sh, v, r.hi, r.lo);
  return r;
}
inline DD sub(DD x, DD y) { return add(x, neg(y)); }

// JMP 2017, Algorithm 10 (DWTimesDW1, without FMA the products of the low
// parts are rounded too): relative error <= 7u^2 / (1 + u)^2 < 7 u^2.
inline DD mul(DD x, DD y) {
  double ch, cl;
  two_prod(x.hi, y.hi, ch, cl);
  const double tl = x.hi * y.lo;
  const double tl2 = x.lo * y.hi;
  cl += tl + tl2;
  DD r;
  fast_two_sum(ch, cl, r.hi, r.lo);
  return r;
}

// JMP 2017, Algorithm 7 (DWTimesFP1): relative error <= 3u^2 / 2 + 4u^3.
inline DD mul(DD x, double y) {
  double ch, cl1, th, tl1;
  two_prod(x.hi, y, ch, cl1);
  const double cl2 = x.lo * y;
  fast_two_sum(ch, cl2, th, tl1);
  const double tl2 = tl1 + cl1;
  DD r;
  fast_two_sum(th, tl2, r.hi, r.lo);
  return r;
}

// JMP 2017, Algorithm 17 (DWDivDW2): relative error <= 15u^2 + 56u^3.
inline DD div(DD x, DD y) {
  const double th = x.hi / y.hi;
  const DD r = mul(y, th);
  double ph, pl;
  two_sum(x.hi, -r.hi, ph, pl);
  const double dh = pl - r.lo;
  const double dl = dh + x.lo;
  const double d = ph + dl;
  const double tl = d / y.hi;
  DD q;
  fast_two_sum(th, tl, q.hi, q.lo);
  return q;
}

// One bound for every operation above, with room: 16 u^2 = 2^-102 relative
// (the largest, the division's, is 15u^2 + 56u^3), valid while no operand,
// product or error term underflows or overflows.
inline constexpr double kOpRel = 0x1p-102;

}  // namespace ropecheck::ref::eft

#endif  // ROPECHECK_REFERENCE_ERROR_FREE_H_
