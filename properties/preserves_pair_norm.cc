// SPDX-License-Identifier: MIT
// Rope/PreservesPairNorm: a rotation keeps each pair's norm, scaled by the
// attention factor: | |out pair| - m |in pair| | within the rotation-invariant
// pair budget without its angle term (an angle error rotates but never
// stretches; ErrorModel::pair_budget_excluding_angle). Much tighter
// than conformance at long context, so it isolates cos/sin that are not on
// the unit circle (a bf16 cache, a fast sincos) from angle errors.
#include <algorithm>

#include "properties/property_helpers.h"
#include "ropecheck/layout.h"

namespace ropecheck::prop {

PropertyResult preserves_pair_norm(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const QkBuffers& in = ctx.inputs();
  const ReferenceResult& ref = ctx.reference();
  const KernelRun* base = nullptr;
  if (auto f = base_run_or_fail(impl, ctx, &base)) return *f;
  const KernelRun& run = *base;
  const ElementBudgets& j = element_budgets(impl, ctx);
  const double m = ref.attention_factor;
  double worst = 0;
  auto fail = for_each_pair(c, [&](int w, std::int64_t t, int h, int i, std::int64_t oa,
                                   std::int64_t ob) -> std::optional<PropertyResult> {
          const double out_norm = std::hypot(stored_value(run.out, w, oa, c.dtype), stored_value(run.out, w, ob, c.dtype));
          const double in_norm = std::hypot(stored_value(in, w, oa, c.dtype), stored_value(in, w, ob, c.dtype));
          // The exact m |in| and the double evaluation of both norms differ
          // by a few double roundings, far below any float budget.
          const double budget = j.pair_budget_no_angle[w][oa] + 4e-16 * (out_norm + m * in_norm);
          const double units = std::fabs(out_norm - m * in_norm) / budget;
          worst = std::max(worst, std::isnan(units) ? HUGE_VAL : units);
          if (!(units <= 1.0))
            return PropertyResult::fail("pair norm not preserved at " + element_name(c, w, t, h, 0) + " (pair " +
                                            std::to_string(i) + "): |out| " + std::to_string(out_norm) +
                                            ", m |in| " + std::to_string(m * in_norm) + ", budget " +
                                            std::to_string(budget),
                                        units);
          return std::nullopt;
        });
  if (fail) return *fail;
  return {Outcome::kPass, {}, worst, {}};
}

}  // namespace ropecheck::prop
