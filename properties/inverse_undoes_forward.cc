// SPDX-License-Identifier: MIT
// Rope/InverseUndoesForward: the inverse direction applied after the
// forward one gives f^T(f(x, p), p) = m^2 x (what the backward pass relies
// on; RoPER). Per pair within the forward run's budget carried over by the
// transpose (scaled by m) plus the inverse run's own.
#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult inverse_undoes_forward(const ropecheck_impl_t& impl, CaseContext& ctx) {
  Case fwd = ctx.spec();
  fwd.direction = ROPECHECK_DIRECTION_FORWARD;
  Case inv = fwd;
  inv.direction = ROPECHECK_DIRECTION_INVERSE;
  if (auto s = skip_outside_capabilities(impl, {&fwd, &inv})) return *s;
  const QkBuffers& x = ctx.inputs();
  KernelRun r1, r2;
  if (auto f = call_or_fail(impl, fwd, x, &r1)) return *f;
  if (auto f = call_or_fail(impl, inv, r1.out, &r2)) return *f;
  // The forward case is the same for every kernel (CaseContext::derived).
  const ElementBudgets& j1 = element_budgets(impl, ctx.derived("InverseUndoesForward", [&] { return CaseContext(fwd, x); }));
  const ElementBudgets j2 = element_budgets(impl, inv, compute_reference(inv, r1.out));
  const double m = j1.attention_factor;
  return compare_pairs(fwd, r2.out, x, m * m,
                       [&](int w, std::int64_t oa, std::int64_t ob) {
                         return m * j1.pair_budget[w][oa] + j2.pair_budget[w][oa] +
                                // m^2 x itself, evaluated in double
                                0x1p-52 * m * m *
                                    std::hypot(stored_value(x, w, oa, fwd.dtype), stored_value(x, w, ob, fwd.dtype));
                       },
                       "f^T(f(x, p), p) vs m^2 x");
}

}  // namespace ropecheck::prop
