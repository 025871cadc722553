// SPDX-License-Identifier: MIT
// Rope/DependsOnlyOnRelativePosition: <f(q, m), f(k, n)> equals
// <f(q, m + t), f(k, n + t)> for every q head, its kv head (GQA) and every
// pair of tokens, within the dot-product budget both runs' element budgets
// imply: |<a, b> - <a', b'>| <= sum |a_j| e(b_j) + |b_j| e(a_j) + e(a_j) e(b_j).
#include <string>

#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult depends_only_on_relative_position(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  Case shifted = c;
  const std::int64_t t = draw_shift(c, 0x52454c, 1 << 12);
  for (auto& p : shifted.positions) p += t;  // every axis of a multi-axis case alike
  return dots_unchanged(impl, ctx, shifted, "shifted by " + std::to_string(t));
}

}  // namespace ropecheck::prop
