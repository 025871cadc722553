// SPDX-License-Identifier: MIT
// exp, log and sqrt of double-double arguments with proven error bounds,
// for BoundedReal (bounded_real.h), which the frequency formulas run on in
// the fast exact reference. docs/REFERENCE.md, "Frequencies", derives the
// bounds; bounded_real_test checks them against MPFR. Only translation
// units compiled with -ffp-contract=off include this header.
#ifndef ROPECHECK_REFERENCE_DD_MATH_H_
#define ROPECHECK_REFERENCE_DD_MATH_H_

#include "reference/error_free.h"

namespace ropecheck::ref {

// exp(x) for |x| <= kMaxExpArg, relative error <= kExpRel. The range keeps
// the result and its low part normal.
inline constexpr double kMaxExpArg = 600.0;
inline constexpr double kExpRel = 0x1p-98;
eft::DD exp_dd(eft::DD x);

// log(x) for x in [e^-kMaxExpArg, e^kMaxExpArg] (the caller checks):
// returns the value and sets *err to a bound on its absolute error; false
// when the Newton step did not land close enough for the bound to hold.
bool log_dd(eft::DD x, eft::DD* out, double* err);

// sqrt(x) for a normal x > 0 (hi in [2^-1000, 2^1000]), relative error <=
// kSqrtRel.
inline constexpr double kSqrtRel = 0x1p-100;
eft::DD sqrt_dd(eft::DD x);

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_DD_MATH_H_
