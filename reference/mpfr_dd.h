// SPDX-License-Identifier: MIT
// The fast reference's constant tables read out of MPFR (dd_math.cc's exp
// constants, fast_trig.cc's sin/cos and pi/2 constants) in one way: a value
// as the double-double nearest it, and a constant peeled into a sum of
// doubles. Both are exact where the MPFR values carry 256 bits: the
// subtractions drop at most 53 leading bits of a 256-bit value.
#ifndef ROPECHECK_REFERENCE_MPFR_DD_H_
#define ROPECHECK_REFERENCE_MPFR_DD_H_

#include <mpfr.h>

#include "reference/error_free.h"

namespace ropecheck::ref {

// hi = RN(a), lo = RN(a - hi); `rest` is scratch (a's precision or more).
inline eft::DD mpfr_to_dd(mpfr_srcptr a, mpfr_ptr rest) {
  eft::DD d;
  d.hi = mpfr_get_d(a, MPFR_RNDN);
  mpfr_sub_d(rest, a, d.hi, MPFR_RNDN);
  d.lo = mpfr_get_d(rest, MPFR_RNDN);
  return d;
}

// terms[i] = RN of what is left of v after terms[0..i-1]; v keeps the rest.
template <int N>
void peel_doubles(mpfr_ptr v, double (&terms)[N]) {
  for (double& t : terms) {
    t = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(v, v, t, MPFR_RNDN);
  }
}

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_MPFR_DD_H_
