// Per-element error budget of a kernel, derived from its declared precision
// policy, the storage dtype, the frequency scheme and the position. The
// derivation is in docs/ERROR_MODEL.md; every term below names its line there.
#ifndef ROPECHECK_CORE_ERROR_MODEL_H_
#define ROPECHECK_CORE_ERROR_MODEL_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"
#include "reference/freq_spec.h"

namespace ropecheck {

// What the budget of one output element depends on, all exact values from
// the reference (as doubles; the budget needs no more precision than that).
struct ElementTerms {
  double x = 0, y = 0;     // the pair's inputs as stored
  double value = 0;        // exact output m*(rotation) of this element
  double partner = 0;      // exact output of the other element of the pair
  double cos_a = 0, sin_a = 0;
  // Sum of the magnitudes of the two products forming this element:
  // |x cos a| + |y sin a| for the first of the pair, |x sin a| + |y cos a|
  // for the second (what the arithmetic rounding error scales with).
  double abs_products = 0;
  double abs_angle = 0;    // |p * w_i|
  std::int64_t position = 0;
  int pair = 0;
};

// The terms of both elements of pair `pair` (first, second), from the pair's
// inputs (x, y), exact outputs (va, vb), exact cos/sin and |angle|: the one
// place the per-element products the budget scales with are formed.
inline std::array<ElementTerms, 2> pair_terms(double x, double y, double va, double vb, double cos_a, double sin_a,
                                              double abs_angle, std::int64_t position, int pair) {
  std::array<ElementTerms, 2> t;
  for (int side = 0; side < 2; ++side) {
    ElementTerms& e = t[side];
    e.x = x;
    e.y = y;
    e.value = side == 0 ? va : vb;
    e.partner = side == 0 ? vb : va;
    e.cos_a = cos_a;
    e.sin_a = sin_a;
    e.abs_products = side == 0 ? std::fabs(x * cos_a) + std::fabs(y * sin_a) : std::fabs(x * sin_a) + std::fabs(y * cos_a);
    e.abs_angle = abs_angle;
    e.position = position;
    e.pair = pair;
  }
  return t;
}

class ErrorModel {
 public:
  ErrorModel(const ropecheck_policy_t& policy, const ref::FreqSpec& spec, ref::HeadShape shape,
             ropecheck_dtype_t storage, double attention_factor);

  // Bound on the relative error of the kernel's w_i (E1 in the doc).
  double freq_rel_error(int pair) const { return freq_rel_[pair]; }
  // Bound on |angle error| at this element (E2).
  double angle_error(const ElementTerms& t) const;
  // Allowed |kernel output - exact value| (E2..E8), per element.
  double budget(const ElementTerms& t) const;
  // Bounds on the distance between the kernel's pair and the exact pair that
  // hold whatever angle the kernel used: every magnitude-dependent term is
  // taken at the pair's norm m r, not at the exact elements (a kernel with a
  // wrong angle puts the magnitude elsewhere; its rounding must not be
  // mistaken for a norm error). Without E2 it bounds how far the pair's
  // norm may move (an angle error rotates, never stretches); with E2
  // (at most m r |da|) it bounds | kernel pair - exact pair |.
  double pair_budget(const ElementTerms& t) const;
  double pair_budget_excluding_angle(const ElementTerms& t) const;
  // Bound on |kernel cos - m cos a| and |kernel sin - m sin a| per unit of m
  // (angle, sin/cos evaluation and cache rounding): below it the sign of cos
  // or sin is uncertain, and so is how a non-finite input propagates.
  double trig_error(const ElementTerms& t) const;
  // Largest |x|, |y| for which no intermediate of the rotation can overflow
  // the math dtype (m sqrt(2) max(|x|, |y|) stays finite): the model's domain.
  double overflow_free_limit() const;
  // The budget's terms, for a failure message: "E2 angle=... E3 sincos=...".
  std::string explain(const ElementTerms& t) const;

  // True when a YaRN correction bound with truncate lies so close to an
  // integer that floor/ceil of any finite-precision evaluation may land on
  // the other side: the frequencies are discontinuous in the parameters
  // there, so no kernel can be held to them (docs, "Ill-conditioned configs").
  static bool yarn_near_cliff(const ref::FreqSpec& spec, int rotary_dim);

  // Validates a declared policy; an empty string when acceptable, else why not.
  static std::string check_policy(const ropecheck_policy_t& policy);

 private:
  ropecheck_policy_t policy_;
  ropecheck_dtype_t storage_;
  double m_;
  double u_freq_, u_math_;
  double sincos_abs_;   // E3
  double cache_abs_;    // E4 (per unit of m)
  double m_rel_;        // E5
  double underflow_abs_;  // E6b: absolute error floor of one rounding in the math dtype

  struct Terms {
    double angle, sincos, cache, attention, arithmetic, underflow, storage;
    double total() const { return angle + sincos + cache + attention + arithmetic + underflow + storage; }
  };
  Terms terms(const ElementTerms& t) const;
  std::vector<double> freq_rel_;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ERROR_MODEL_H_
