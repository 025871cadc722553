// SPDX-License-Identifier: MIT
// What the fast exact reference's own files share (fast_rotation.cc,
// fast_trig_row.cc): the MPFR path's preallocated operands and the
// magnitude ranges its bounds are proven for. Not for use elsewhere.
#ifndef ROPECHECK_REFERENCE_FAST_INTERNAL_H_
#define ROPECHECK_REFERENCE_FAST_INTERNAL_H_

#include <mpfr.h>

#include <utility>

#include "reference/fast_rotation.h"
#include "reference/frequencies.h"
#include "reference/real.h"

namespace ropecheck::ref {

// The MPFR path's operands, allocated once per FastReference: MPFR
// temporaries through Boost would cost a malloc each. At Real's precision,
// so every MPFR result is the very value the MPFR path holds.
class MpfrScratch {
 public:
  explicit MpfrScratch(mpfr_prec_t prec) {
    for (mpfr_ptr p : {angle, c, s, mc, ms, rest, in_a, in_b, t1, t2}) mpfr_init2(p, prec);
  }
  ~MpfrScratch() {
    for (mpfr_ptr p : {angle, c, s, mc, ms, rest, in_a, in_b, t1, t2}) mpfr_clear(p);
  }
  MpfrScratch(const MpfrScratch&) = delete;
  MpfrScratch& operator=(const MpfrScratch&) = delete;
  mpfr_t angle, c, s, mc, ms, rest, in_a, in_b, t1, t2;
  Real out;  // round_to_dtype takes a Real
};

struct ExactFrequencies : Frequencies<Real> {
  explicit ExactFrequencies(Frequencies<Real> f) : Frequencies<Real>(std::move(f)) {}
};

// C and S (m cos, m sin) must be exactly 0 or within these, their low parts
// exactly 0 or above kMinLo (docs/REFERENCE.md, "Range conditions").
inline constexpr double kMinTrig = 0x1p-150;
inline constexpr double kMaxTrig = 0x1p100;
inline constexpr double kMinLo = 0x1p-300;

// An MPFR value as a FastValue: hi = RN(v), lo = RN(v - hi), rad the rest.
FastValue fast_value(const Real& v);

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_FAST_INTERNAL_H_
