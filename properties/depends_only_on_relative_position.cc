// Rope/DependsOnlyOnRelativePosition: <f(q, m), f(k, n)> equals
// <f(q, m + t), f(k, n + t)> for every q head, its kv head (GQA) and every
// pair of tokens, within the dot-product budget both runs' element budgets
// imply: |<a, b> - <a', b'>| <= sum |a_j| e(b_j) + |b_j| e(a_j) + e(a_j) e(b_j).
#include <algorithm>

#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult depends_only_on_relative_position(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  Case shifted = c;
  const std::int64_t t = draw_shift(c, 0x52454c, 1 << 12);
  for (auto& p : shifted.positions) p += t;
  if (auto s = skip_outside_capabilities(impl, {&c, &shifted})) return *s;
  const QkBuffers& in = ctx.inputs();
  const Case* cases[2] = {&c, &shifted};
  KernelRun runs[2];
  ElementBudgets js[2];
  for (int r = 0; r < 2; ++r) {
    if (auto f = call_or_fail(impl, *cases[r], in, &runs[r])) return *f;
    js[r] = element_budgets(impl, *cases[r], r == 0 ? ctx.reference() : compute_reference(*cases[r], in));
  }
  const Geometry g = geometry(c);
  const int group = c.q_heads / c.kv_heads;
  double worst = 0;
  for (int h = 0; h < c.q_heads; ++h)
    for (std::int64_t a = 0; a < c.tokens; ++a)
      for (std::int64_t b = 0; b < c.tokens; ++b) {
        double dot[2] = {0, 0}, budget = 0, mag = 0;
        for (int r = 0; r < 2; ++r)
          for (int j = 0; j < g.head_dim; ++j) {
            const std::int64_t oq = g.offset(0, a, h, j), ok = g.offset(1, b, h / group, j);
            const double qv = stored_value(runs[r].out, 0, oq, c.dtype), kv = stored_value(runs[r].out, 1, ok, c.dtype);
            dot[r] += qv * kv;
            mag += std::fabs(qv * kv);
            const double eq = js[r].budget[0][oq], ek = js[r].budget[1][ok];
            budget += std::fabs(js[r].value[0][oq]) * ek + std::fabs(js[r].value[1][ok]) * eq + eq * ek;
          }
        budget += 4.0 * g.head_dim * 0x1p-53 * mag;  // the dots themselves, in double
        const double units = std::fabs(dot[0] - dot[1]) / budget;
        worst = std::max(worst, std::isnan(units) ? HUGE_VAL : units);
        if (!(units <= 1.0))
          return PropertyResult::fail(
              "q head " + std::to_string(h) + " token " + std::to_string(a) + " . k token " +
                  std::to_string(b) + ": dot " + std::to_string(dot[0]) + " at positions (" +
                  std::to_string(c.positions[a]) + ", " + std::to_string(c.positions[b]) +
                  ") but " + std::to_string(dot[1]) + " shifted by " + std::to_string(t) +
                  ", budget " + std::to_string(budget),
              units);
      }
  return {Outcome::kPass, {}, worst, {}};
}

}  // namespace ropecheck::prop
