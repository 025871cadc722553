// SPDX-License-Identifier: MIT
// Per-element error budget of a kernel, derived from its declared precision
// policy, the storage dtype, the frequency scheme and the position. The
// derivation is in docs/ERROR_MODEL.md; every term below names its line there.
#ifndef ROPECHECK_CORE_ERROR_MODEL_ERROR_MODEL_H_
#define ROPECHECK_CORE_ERROR_MODEL_ERROR_MODEL_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error_model/angle_error.h"
#include "reference/freq_spec.h"
#include "ropecheck/dtype.h"
#include "ropecheck/kernel_abi.h"
#include "ropecheck/policy.h"

namespace ropecheck {

// What the budget of one output element depends on, all exact values from
// the reference (as doubles; the budget needs no more precision than that).
struct ElementTerms {
  double x = 0, y = 0;     // the pair's inputs as stored
  double value = 0;        // exact output m*(rotation) of this element
  double partner = 0;      // exact output of the other element of the pair
  double cos_a = 0, sin_a = 0;
  double abs_angle = 0;    // |p * w_i|
  std::int64_t position = 0;  // the position of this pair's axis
  int pair = 0;               // the pair's index in its frequency group's formula
  int freq_group = 0;         // 0, or the axis for per-axis frequencies (reference/axis_spec.h)
  // 0: the first element of the pair, m (x cos a - y sin a): cos multiplies
  // x; 1: the second, m (x sin a + y cos a): sin multiplies x.
  int side = 0;
  // How far the kernel's rotation inputs may lie from x and y: a fused
  // qk-norm's error (E10, core/error_model/qk_norm_budget.h) plus the
  // reference's own rounding of the normalised values to doubles. 0 for a
  // plain rotation, whose inputs are the stored values themselves.
  double input_error_x = 0, input_error_y = 0;
};

// What both elements of one rotated pair share: the pair's inputs as stored
// (x, y), their exact outputs (value[0] the first element's, value[1] the
// second's), the exact cos and sin of the angle and its magnitude, the
// position of the pair's axis, the pair's index in its frequency group's
// formula and that group (ElementTerms's fields of the same names).
struct PairInputs {
  double x = 0, y = 0;
  std::array<double, 2> value{};
  double cos_a = 0, sin_a = 0, abs_angle = 0;
  std::int64_t position = 0;
  int pair = 0;
  int freq_group = 0;
};

// The terms of both elements of a pair (first, second).
// Written into t field by field: the judge and the budget tables fill one
// pair's terms per rotated pair, and a value-initialised pair of terms
// (zeroed, then copied) was a tenth of the budget tables' time.
inline void set_pair_terms(std::array<ElementTerms, 2>& t, const PairInputs& in) {
  for (int side = 0; side < 2; ++side) {
    ElementTerms& e = t[side];
    e.x = in.x;
    e.y = in.y;
    e.value = in.value[side];
    e.partner = in.value[1 - side];
    e.cos_a = in.cos_a;
    e.sin_a = in.sin_a;
    e.abs_angle = in.abs_angle;
    e.position = in.position;
    e.pair = in.pair;
    e.freq_group = in.freq_group;
    e.side = side;
    e.input_error_x = e.input_error_y = 0;
  }
}
inline std::array<ElementTerms, 2> pair_terms(const PairInputs& in) {
  std::array<ElementTerms, 2> t;
  set_pair_terms(t, in);
  return t;
}

// The budget of one element, term by term (docs/ERROR_MODEL.md labels).
struct BudgetTerms {
  double angle = 0;  // E2: the kernel's angle (E1 frequency, product, fast sin/cos phase)
  double trig = 0;   // E3-E5: sin/cos evaluation, attention factor, cos/sin dtype
  double prods = 0;  // E6: the rotation's roundings before the last one
  double fin = 0;    // E6': the last rotation rounding, in the math dtype
  double store = 0;  // E7: the store to the storage dtype (0 when the math dtype's values are storage values)
  double judge = 0;  // E8: the exact value as the judge holds it, rounded to a double
  // E10 carried through the rotation: inputs off by input_error_x/y put the
  // output off by at most that times |kernel cos|, |kernel sin| (0 for a
  // plain rotation; not among the kBudgetTermCount terms the slack and
  // dominance tables list, which are the plain rotation's).
  double input = 0;
  bool angle_capped = false;  // E2 at its cap 2 m r (the kernel's angle may be anywhere)
  double total() const { return angle + trig + prods + fin + store + judge + input; }
};
inline constexpr int kBudgetTermCount = 7;  // the six terms, E2 split into capped and not
// The largest term of a budget, as an index into budget_term_name().
// Inline: the budget tables ask it of every element.
inline int dominant_term(const BudgetTerms& t) {
  const double v[kBudgetTermCount] = {t.angle_capped ? 0 : t.angle, t.angle_capped ? t.angle : 0, t.trig, t.prods,
                                      t.fin, t.store, t.judge};
  int best = 0;  // the first of the largest (std::max_element)
  for (int i = 1; i < kBudgetTermCount; ++i)
    if (v[best] < v[i]) best = i;
  return best;
}
const char* budget_term_name(int term);

// What a budget depends on beside the kernel's declared policy: the case.
struct ModelCase {
  ref::FreqSpec spec{};
  ref::HeadShape shape{};
  ropecheck_dtype_t storage = ROPECHECK_DTYPE_F32;
  double attention_factor = 1.0;
  // The rotary dim of each frequency group of a multi-axis case with
  // per-axis frequencies (ElementTerms::freq_group indexes it); empty: one
  // group over shape.rotary_dim.
  std::vector<int> group_rotary_dims{};
  // The kernel reads a cos/sin cache the caller built from the exact
  // angles, rounded once to this dtype (ABI 1.6), in place of forming
  // angles and sin/cos itself (E4c in the doc).
  std::optional<ropecheck_dtype_t> caller_cache{};
};

class ErrorModel {
 public:
  ErrorModel(const Policy& policy, const ModelCase& c);

  // Bound on the relative error of the kernel's w_i (E1 in the doc).
  double freq_rel_error(int pair) const { return angles_[0].freq_rel_error(pair); }
  // Bound on |angle error| at this element (E1, and a fast sin/cos's phase
  // error beyond its declared range).
  double angle_error(const ElementTerms& t) const;
  // Allowed |kernel output - exact value|, per element, and its terms.
  double budget(const ElementTerms& t) const { return terms(t).total(); }
  BudgetTerms terms(const ElementTerms& t) const;
  // Bounds on the distance between the kernel's pair and the exact pair that
  // hold whatever angle the kernel used: every magnitude-dependent term is
  // taken at the pair's norm m r, not at the exact elements (a kernel with a
  // wrong angle puts the magnitude elsewhere; its rounding must not be
  // mistaken for a norm error). Without E2 it bounds how far the pair's
  // norm may move (an angle error rotates, never stretches); with E2
  // (at most m r |da|) it bounds | kernel pair - exact pair |.
  double pair_budget(const ElementTerms& t) const;
  double pair_budget_excluding_angle(const ElementTerms& t) const;
  // Everything above for both elements of one pair at once (first, second:
  // pair_terms), bit for bit what terms(), pair_budget() and
  // pair_budget_excluding_angle() give: the angle bound, the sin/cos bounds
  // and |(x, y)| are the same for both elements and worked out once (the
  // judge and the properties budget every element of every case).
  struct PairBudgets {
    std::array<BudgetTerms, 2> terms;
    double pair = 0, pair_no_angle = 0;
    double norm = 0;  // hypot(x, y)
  };
  PairBudgets pair_budgets(const std::array<ElementTerms, 2>& t) const;
  // Bound on |kernel cos - m cos a~| (delta) and on |kernel cos| (kmax), the
  // same for sin, given Cm >= |cos a~| (E3-E5).
  struct TrigBound {
    double delta, kmax;
  };
  // What pair_budgets needs of a pair's angle alone: its bound A and the
  // sin/cos bounds at it. It depends on the token's position and the pair
  // (abs_angle, cos_a, sin_a, position, pair, freq_group), never on the head,
  // so budget_table works it out once per token and pair, not per head.
  struct AngleShared {
    double angle_error;  // A
    TrigBound cos, sin;  // at min(1, |cos a| + A), min(1, |sin a| + A)
  };
  AngleShared angle_shared(const ElementTerms& t) const;
  // pair_budgets with a's angle part (angle_shared of an element at the same
  // token and pair): bit for bit the same.
  PairBudgets pair_budgets(const std::array<ElementTerms, 2>& t, const AngleShared& a) const;
  // Bound on |kernel cos - m cos a| and |kernel sin - m sin a| per unit of m
  // (angle, sin/cos evaluation and cache rounding): below it the sign of cos
  // or sin is uncertain, and so is how a non-finite input propagates.
  double trig_error(const ElementTerms& t) const;
  // A lower bound on terms(t).total() for every element whose exact value
  // has magnitude `abs_value`, whatever its angle and inputs: E6' and E7
  // taken at |value| alone (each term is at least that, and a rounded sum
  // of non-negative terms is at least the rounded sum of two of them). An
  // error within it needs no budget: the judge's verdict-only depth
  // (core/judge/judge.h) works a pair's budget out only past it.
  double budget_floor(double abs_value) const;
  // Largest |x|, |y| for which no intermediate of the rotation can overflow
  // the math dtype (m sqrt(2) max(|x|, |y|) stays finite): the model's domain.
  double overflow_free_limit() const;
  // The budget's terms, for a failure message: "budget ... = angle ... + ...".
  std::string explain(const ElementTerms& t) const;

  // Validates a declared policy; an empty string when acceptable, else why
  // not, naming the field. With `caps`, also its coherence with what the
  // kernel declares to support (core/error_model/policy_check.cc).
  static std::string check_policy(const Policy& policy, const ropecheck_caps_t* caps = nullptr);

 private:
  TrigBound trig_bound(double cm) const;
  // What terms() needs of a pair beyond the element itself, the same for
  // both of its elements.
  struct PairShared {
    double angle_error;   // A
    double input_norm;    // hypot(|x| + dx, |y| + dy)
    TrigBound cos, sin;   // at min(1, |cos a| + A), min(1, |sin a| + A)
  };
  PairShared pair_shared(const ElementTerms& t) const;
  // The per-element path of a budget table, inlined into pair_budgets (each
  // a call of its own was a fifth of a table's time, bench/budget_bench.cc);
  // defined in error_model.cc, the one file that calls them.
  [[gnu::always_inline]] inline PairShared pair_shared(const ElementTerms& t, const AngleShared& a) const;
  [[gnu::always_inline]] inline BudgetTerms terms(const ElementTerms& t, const PairShared& s) const;
  // pair_budget_excluding_angle with norm = hypot(x, y).
  [[gnu::always_inline]] inline double pair_budget_excluding_angle(const ElementTerms& t, double norm) const;
  // One rounding to the math dtype of a value of magnitude <= z.
  [[gnu::always_inline]] inline double math_rounding(double z) const;
  // E7: the store to the storage dtype of a value of magnitude <= z.
  [[gnu::always_inline]] inline double store_rounding(double z) const;
  // Subnormals flushed (1.7): t with the inputs a DAZ operation reads as 0
  // counted as input errors (|x| below the math dtype's smallest normal).
  ElementTerms with_flushed_inputs(const ElementTerms& t) const;
  // A without and with the phase error of a fast sin/cos beyond its range.
  double phase_error(double abs_angle, double a0) const;

  Policy policy_;
  ropecheck_dtype_t math_;    // math_dtype with OF_STORAGE resolved
  ropecheck_dtype_t cos_sin_;  // cache_dtype with OF_STORAGE resolved
  ropecheck_dtype_t trig_;    // precision sin/cos are evaluated in
  std::optional<ropecheck_dtype_t> caller_cache_;  // the caller's cache's dtype (ABI 1.6)
  double m_;
  double m_rel_;  // E5: relative error of the kernel's attention factor
  std::vector<AngleError> angles_;  // per frequency group
  TrigBound unit_trig_{0, 0};       // trig_bound(1.0): whatever the angle
  // What the per-element terms ask of the dtypes, worked out once: every
  // budget table calls them a few dozen times per pair.
  DtypeFormat math_format_, storage_format_;
  bool math_narrow_;    // bf16/f16 math: an fp32 operation rounded again
  bool store_rounds_;   // E7: some math value is not a storage value
  bool fma_rotation_;   // E6: one rounding for both products
  // Subnormals flushed (1.7): an operation's input or result below the
  // smallest normal number of its dtype (the math dtype's, the storage
  // dtype's for the store) may read or be written as zero.
  bool flush_;
  double flush_math_, flush_store_;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ERROR_MODEL_ERROR_MODEL_H_
