// SPDX-License-Identifier: MIT
// Rope/IsLayoutEquivariant: the two pairing layouts differ by a fixed
// channel permutation P (half split pair (i, i+d/2) <-> interleaved
// (2i, 2i+1)), so interleaved(P x) = P half_split(x) within both budgets.
// This is the identity HF relies on when it permutes Meta checkpoints
// (transformers #25199).
#include <algorithm>

#include "properties/property_helpers.h"


namespace ropecheck::prop {

PropertyResult is_layout_equivariant(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& base = ctx.spec();
  Case half = base, inter = base;
  half.layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  inter.layout = ROPECHECK_LAYOUT_INTERLEAVED;
  if (auto s = skip_outside_capabilities(impl, {&half, &inter})) return *s;
  const Geometry g = geometry(half);
  const int d = g.rotary_dim, pairs = d / 2;
  // Channel of the interleaved layout that holds half-split channel j.
  auto P = [&](int j) { return j < d ? (j < pairs ? 2 * j : 2 * (j - pairs) + 1) : j; };
  // Both cases and their inputs are the same for every kernel (CaseContext::derived).
  CaseContext& ch = ctx.derived("IsLayoutEquivariant half_split", [&] { return CaseContext(half, make_inputs(half)); });
  const QkBuffers& xh = ch.inputs();
  CaseContext& ci = ctx.derived("IsLayoutEquivariant interleaved", [&] {
    QkBuffers xi = xh;
    for (int w = 0; w < 2; ++w)
      for (std::int64_t t = 0; t < half.tokens; ++t)
        for (int h = 0; h < g.heads[w]; ++h)
          for (int j = 0; j < d; ++j)
            std::copy_n(xh.bytes[w].begin() + g.offset(w, t, h, j) * g.esize, g.esize,
                        xi.bytes[w].begin() + g.offset(w, t, h, P(j)) * g.esize);
    return CaseContext(inter, std::move(xi));
  });
  const QkBuffers& xi = ci.inputs();
  KernelRun rh, ri;
  if (auto f = call_or_fail(impl, half, xh, &rh)) return *f;
  if (auto f = call_or_fail(impl, inter, xi, &ri)) return *f;
  const ElementBudgets& jh = element_budgets(impl, ch);
  const ElementBudgets& ji = element_budgets(impl, ci);
  double worst = 0;
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < half.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = 0; j < g.head_dim; ++j) {
          const std::int64_t oh = g.offset(w, t, h, j), oi = g.offset(w, t, h, P(j));
          const double a = stored_value(rh.out, w, oh, half.dtype), b = stored_value(ri.out, w, oi, half.dtype);
          const double budget = jh.budget[w][oh] + ji.budget[w][oi];
          if (j >= d) {  // pass-through: identical
            if (!same_value(rh.out, ri.out, w, oh, half.dtype))
              return PropertyResult::fail("pass-through differs between layouts at " + element_name(half, w, t, h, j));
            continue;
          }
          const double units = std::fabs(a - b) / budget;
          worst = std::max(worst, std::isnan(units) ? HUGE_VAL : units);
          if (!(units <= 1.0))
            return PropertyResult::fail("interleaved(P x) != P half_split(x) at " + element_name(half, w, t, h, j) +
                                            ": " + std::to_string(b) + " vs " + std::to_string(a) +
                                            ", budget " + std::to_string(budget),
                                        units);
        }
  return {Outcome::kPass, {}, worst, {}};
}

}  // namespace ropecheck::prop
