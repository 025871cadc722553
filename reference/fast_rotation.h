// SPDX-License-Identifier: MIT
// The fast exact reference: the same doubles as the MPFR path
// (ReferenceRope<Real>::rotate + convert_to<double> + round_to_dtype, Real
// holding 134 bits) for every element, bit for bit, at machine speed.
//
// Ziv's strategy, as CORE-MATH and CRlibm use it: each value is computed in
// double-double arithmetic with a proven bound on its distance to both the
// exact value and the MPFR path's value; a rounding (to double, or to the
// storage dtype) is accepted only when no rounding boundary lies within that
// bound, and anything left undecided is computed by the MPFR path itself.
// docs/REFERENCE.md derives the bounds.
#ifndef ROPECHECK_REFERENCE_FAST_ROTATION_H_
#define ROPECHECK_REFERENCE_FAST_ROTATION_H_

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "reference/freq_spec.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::ref {

// A coefficient as double-double, hi = RN(V), lo ~ V - hi, with hi's
// Veltkamp halves (hi = hh + hl, 26 bits each) so TwoProd needs no FMA.
struct FastCoef {
  double hi, lo, hh, hl;
};

// What the fast path keeps of one (position, pair).
struct FastTrig {
  // C ~ m cos a and S ~ m sin a. rad_c and rad_s bound |C - C'| and
  // |S - S'| absolutely for both the MPFR path's P-bit products C', S' and
  // the exact m cos a, m sin a (0 when C and S are those P-bit values
  // rounded to double-double, whose 2^-106 relative error the per-element
  // bound already covers).
  FastCoef mc, ms;
  double rad_c, rad_s;
  // What the MPFR path reports: RN(cos a), RN(sin a), RN(p w_i).
  double cos_d, sin_d, angle_d;
  // False when C or S lies outside the magnitude range the bound is proven
  // for (tiny or huge m, cos within 2^-150 of zero): every element of this
  // pair then takes the MPFR path.
  bool ok;
  // Zero angle (sin exactly 0) and C exactly a double (m a double, cos 1):
  // the outputs are the exact products x C, y C, so there is no error to
  // bound and exact ties are decided too (position 0 with an explicit m
  // would otherwise fall back on every tie of the double conversion).
  bool exact;
};

struct FastTrigRow {
  std::int64_t position = 0;
  std::vector<FastTrig> pair;  // rotary_dim/2 entries
};

// One pair's outputs: element 0 is channel a (x' = x cos - y sin), element 1
// channel b (y' = x sin + y cos), as pair_channels names them.
struct FastPairResult {
  double value[2] = {0, 0};    // RN to double of the exact output
  double rounded[2] = {0, 0};  // RN to the storage dtype (round_to_dtype)
  bool decided[2] = {false, false};
};

struct FastStats {
  std::uint64_t elements = 0;       // elements answered by rotate_pair
  std::uint64_t fallbacks = 0;      // of which the MPFR path decided
  std::uint64_t trig_entries = 0;   // (position, pair) entries computed
  std::uint64_t trig_fallbacks = 0; // of which MPFR computed
  std::uint64_t freq_fallbacks = 0; // cases whose frequencies MPFR computed
  FastStats& operator+=(const FastStats& o);
};

// A real known to within `rad` of hi + lo (|lo| <= ulp(hi)/2): how the fast
// path holds w_i and m, covering both the MPFR path's P-bit value and the
// exact one.
struct FastValue {
  double hi = 0, lo = 0, rad = 0;
};

class MpfrScratch;  // the MPFR path's preallocated operands (fast_internal.h)
// The MPFR path's w_i and m, a Frequencies<Real> (fast_internal.h). Declared
// only: the MPFR and Boost.Multiprecision headers stay out of this one, which
// the judge and so about a hundred files include (each would compile them).
struct ExactFrequencies;

class FastReference {
 public:
  // Validates (throws ConfigError) and computes w_i and m, exactly as
  // ReferenceRope<Real> does.
  FastReference(const FreqSpec& spec, HeadShape shape);
  ~FastReference();
  FastReference(const FastReference&) = delete;
  FastReference& operator=(const FastReference&) = delete;

  HeadShape shape() const { return shape_; }
  // RN(m) and RN(w_i): what the MPFR path reports.
  double attention_factor() const { return m_d_; }
  const std::vector<double>& inv_freq() const { return w_d_; }

  // The row of a position, computed on first use and cached.
  const FastTrigRow& trig(std::int64_t position);

  // The double-double attempt alone: decided[k] false means element k must
  // come from the MPFR path. Never wrong when it decides.
  FastPairResult try_rotate_pair(double x, double y, const FastTrig& t, bool inverse,
                                 ropecheck_dtype_t dtype) const;

  // Always answers: the fast attempt, and the MPFR path's arithmetic for an
  // element it leaves undecided. Counts both in stats().
  FastPairResult rotate_pair(double x, double y, const FastTrigRow& row, int pair, bool inverse,
                             ropecheck_dtype_t dtype);

  // The MPFR path's arithmetic (ReferenceRope::trig + rotate_pair +
  // convert_to + round_to_dtype), operation for operation, for the elements
  // of *r not yet decided; marks them decided. The fallback, public for tests.
  void mpfr_pair(double x, double y, std::int64_t position, int pair, bool inverse, ropecheck_dtype_t dtype,
                 FastPairResult* r);

  const FastStats& stats() const { return stats_; }

 private:
  // One (position, pair): double-double sin/cos when the bounds decide
  // every rounding it reports, else mpfr_trig (fast_trig_row.cc).
  FastTrig fast_trig(std::int64_t position, int pair);
  FastTrig mpfr_trig(std::int64_t position, int pair);
  const ExactFrequencies& exact_freqs();

  FreqSpec spec_;
  HeadShape shape_;
  double m_d_ = 1;
  std::vector<double> w_d_;
  FastValue m_;
  std::vector<FastValue> w_;
  std::shared_ptr<const ExactFrequencies> exact_;  // the MPFR frequencies (fast_frequencies.h's cache)
  std::unique_ptr<MpfrScratch> mp_;
  std::unordered_map<std::int64_t, FastTrigRow> cache_;
  FastStats stats_;
};

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_FAST_ROTATION_H_
