// Rope/ComposesAdditively: f(f(x, a), b) = f(x, a + b) with attention factor
// 1, and Rope/InverseUndoesForward: f^T(f(x, p), p) = m^2 x (the backward
// pass; RoPER). Per pair, the distance is bounded by the sum of the runs'
// pair budgets, since a rotation carries an earlier error over unstretched
// (scaled by m for the transpose).
#include <algorithm>

#include "ropecheck/layout.h"
#include "support.h"

namespace ropecheck::prop {
namespace {

double pair_budget(const Judged& j, int w, std::int64_t oa, std::int64_t) {
  return j.pair_budget[w][oa];  // rotation-invariant: valid whatever angle a run used
}

// Compares `got` with `want_scale * want` pair by pair against `budget(w, oa, ob)`.
template <class Budget>
PropertyResult compare_pairs(const Case& c, const Tensors& got, const Tensors& want, double want_scale,
                             Budget budget, const std::string& what) {
  double worst = 0;
  auto fail = for_each_pair(c, [&](int w, std::int64_t t, int h, int i, std::int64_t oa,
                                   std::int64_t ob) -> std::optional<PropertyResult> {
          const double dist = std::hypot(element(got, w, oa, c.dtype) - want_scale * element(want, w, oa, c.dtype),
                                         element(got, w, ob, c.dtype) - want_scale * element(want, w, ob, c.dtype));
          const double bud = budget(w, oa, ob) * (1 + 0x1p-40);
          const double units = dist / bud;
          worst = std::max(worst, std::isnan(units) ? HUGE_VAL : units);
          if (!(units <= 1.0))
            return PropertyResult::fail(what + " off by " + std::to_string(dist) + " (budget " +
                                            std::to_string(bud) + ") at " + where(c, w, t, h, 0) +
                                            ", pair " + std::to_string(i),
                                        units);
          return std::nullopt;
        });
  if (fail) return *fail;
  return {Outcome::kPass, {}, worst};
}

}  // namespace

PropertyResult composes_additively(const ropecheck_impl_t& impl, const Case& base) {
  Case ca = base;
  ca.freq.attention_factor = 1.0;  // composition holds for the unscaled rotation
  ca.direction = ROPECHECK_DIRECTION_FORWARD;
  Case cb = ca, cab = ca;
  for (std::size_t t = 0; t < ca.positions.size(); ++t) {
    const std::int64_t b = draw_shift(ca, 0x434f4d + t, 1 << 12);
    cb.positions[t] = b;
    cab.positions[t] = ca.positions[t] + b;
  }
  if (auto s = scope(impl, {&ca, &cb, &cab})) return *s;
  const Tensors x = make_inputs(ca);
  RunResult r1, r2, r3;
  if (auto f = run_or_fail(impl, ca, x, &r1)) return *f;
  if (auto f = run_or_fail(impl, cb, r1.out, &r2)) return *f;
  if (auto f = run_or_fail(impl, cab, x, &r3)) return *f;
  const Judged j1 = judged(impl, ca, compute_reference(ca, x));
  const Judged j2 = judged(impl, cb, compute_reference(cb, r1.out));
  const Judged j3 = judged(impl, cab, compute_reference(cab, x));
  return compare_pairs(ca, r2.out, r3.out, 1.0,
                       [&](int w, std::int64_t oa, std::int64_t ob) {
                         return pair_budget(j1, w, oa, ob) + pair_budget(j2, w, oa, ob) +
                                pair_budget(j3, w, oa, ob);
                       },
                       "f(f(x, a), b) vs f(x, a + b)");
}

PropertyResult inverse_undoes_forward(const ropecheck_impl_t& impl, const Case& base) {
  Case fwd = base;
  fwd.direction = ROPECHECK_DIRECTION_FORWARD;
  Case inv = fwd;
  inv.direction = ROPECHECK_DIRECTION_INVERSE;
  if (auto s = scope(impl, {&fwd, &inv})) return *s;
  const Tensors x = make_inputs(fwd);
  RunResult r1, r2;
  if (auto f = run_or_fail(impl, fwd, x, &r1)) return *f;
  if (auto f = run_or_fail(impl, inv, r1.out, &r2)) return *f;
  const Judged j1 = judged(impl, fwd, compute_reference(fwd, x));
  const Judged j2 = judged(impl, inv, compute_reference(inv, r1.out));
  const double m = j1.attention_factor;
  return compare_pairs(fwd, r2.out, x, m * m,
                       [&](int w, std::int64_t oa, std::int64_t ob) {
                         return m * pair_budget(j1, w, oa, ob) + pair_budget(j2, w, oa, ob) +
                                // m^2 x itself, evaluated in double
                                0x1p-52 * m * m * std::hypot(element(x, w, oa, fwd.dtype), element(x, w, ob, fwd.dtype));
                       },
                       "f^T(f(x, p), p) vs m^2 x");
}

}  // namespace ropecheck::prop
