// SPDX-License-Identifier: MIT
// Rope/RotatesQAndKAlike: q and k heads holding the same data at the same
// position share their exact result and its budget, so their outputs lie
// within twice that budget of each other, and their pass-through channels
// are bit-identical. Catches k rotated with q's head count, k's stride taken
// from q's, k given another position. Not bit-exact: an eager framework's
// vectorized loops round q's and k's elements differently where the tensors'
// sizes put them in a SIMD body or a scalar tail (PyTorch's complex multiply
// does; found by python/tests/test_torch_kernels.py), and both are correct.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult rotates_q_and_k_alike(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const Geometry g = geometry(c);
  // k holds q's data: the same inputs for every kernel (CaseContext::derived).
  CaseContext& same = ctx.derived("RotatesQAndKAlike", [&] {
    QkBuffers in = ctx.inputs();
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < c.kv_heads; ++h)
        std::copy_n(in.bytes[0].begin() + g.offset(0, t, h, 0) * g.esize, g.head_dim * g.esize,
                    in.bytes[1].begin() + g.offset(1, t, h, 0) * g.esize);
    return CaseContext(c, std::move(in));
  });
  const QkBuffers& in = same.inputs();
  KernelRun run;
  if (auto f = call_or_fail(impl, c, in, &run)) return *f;
  const ElementBudgets& b = element_budgets(impl, same);
  double worst = 0;
  for (std::int64_t t = 0; t < c.tokens; ++t)
    for (int h = 0; h < c.kv_heads; ++h)
      for (int j = 0; j < g.head_dim; ++j) {
        const std::int64_t oq = g.offset(0, t, h, j), ok = g.offset(1, t, h, j);
        const double q = stored_value(run.out, 0, oq, c.dtype), k = stored_value(run.out, 1, ok, c.dtype);
        double allowed = 0, units = 0;
        if (j >= g.rotary_dim) {  // pass-through: the input's bits in both
          units = std::memcmp(run.out.bytes[0].data() + oq * g.esize, run.out.bytes[1].data() + ok * g.esize,
                              g.esize) == 0
                      ? 0.0
                      : HUGE_VAL;
        } else if (!(std::isnan(q) && std::isnan(k))) {
          allowed = b.budget[0][static_cast<std::size_t>(oq)] + b.budget[1][static_cast<std::size_t>(ok)];
          units = std::fabs(q - k) / allowed;
        }
        worst = std::max(worst, std::isnan(units) ? HUGE_VAL : units);
        if (!(units <= 1.0))
          return PropertyResult::fail("q and k with the same data differ at token " + std::to_string(t) + ", head " +
                                          std::to_string(h) + ", channel " + std::to_string(j) + " position " +
                                          c.token_positions(t) + ": " +
                                          std::to_string(q) + " vs " + std::to_string(k) +
                                          (allowed > 0 ? ", allowed " + std::to_string(allowed) : " (pass-through)"),
                                      units);
      }
  return {Outcome::kPass, {}, worst, {}};
}

}  // namespace ropecheck::prop
