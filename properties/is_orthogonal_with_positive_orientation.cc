// Rope/IsOrthogonalWithPositiveOrientation: the matrix R_p the kernel
// applies, built column by column from basis vectors e_j at one position,
// satisfies R^T R = m^2 I within budget (R is block diagonal: entries outside
// a pair's block must be exactly zero), and every 2x2 pair block has
// determinant m^2 > 0: a reflection (det -1) fails here; a flipped direction
// (det +1) is left to conformance.
#include <algorithm>
#include <vector>

#include "properties/property_helpers.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/layout.h"

namespace ropecheck::prop {

PropertyResult is_orthogonal_with_positive_orientation(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& base = ctx.spec();
  // One head per tensor, one token per basis vector, all at one position.
  Case c = base;
  const int d = c.shape.rotary_dim;
  c.tokens = d;
  c.q_heads = c.kv_heads = 1;
  c.head_pad = c.token_pad = 0;
  c.positions.assign(static_cast<std::size_t>(d), base.positions[0]);
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const Geometry g = geometry(c);
  QkBuffers in;
  for (int w = 0; w < 2; ++w) {
    in.bytes[w].assign(static_cast<std::size_t>(g.elements[w]) * g.esize, 0);  // +0 in every dtype
    for (int j = 0; j < d; ++j) store_value(in.bytes[w].data(), g.offset(w, j, 0, j), c.dtype, 1.0);
  }
  KernelRun run;
  if (auto f = call_or_fail(impl, c, in, &run)) return *f;
  const ElementBudgets jd = element_budgets(impl, c, compute_reference(c, in));
  const double m2 = jd.attention_factor * jd.attention_factor;
  // R[k][j] = channel k of the output for input e_j (token j), tensor q.
  // Column j is m times a unit vector inside pair(j), moved by at most P_j
  // (the rotation-invariant pair budget without the angle term: an angle
  // error keeps R orthogonal) and exactly zero outside pair(j).
  auto R = [&](int k, int j) { return stored_value(run.out, 0, g.offset(0, j, 0, k), c.dtype); };
  auto P = [&](int j) { return jd.pair_budget_no_angle[0][g.offset(0, j, 0, j)]; };
  const double m = jd.attention_factor;
  std::vector<int> partner(d);
  for (int i = 0; i < d / 2; ++i) {
    int a, b;
    pair_channels(c.layout, d, i, &a, &b);
    partner[a] = b;
    partner[b] = a;
  }
  double worst = 0;
  for (int j = 0; j < d; ++j)
    for (int k = 0; k < d; ++k)
      if (k != j && k != partner[j] && !exactly_equal(R(k, j), 0.0))
        return PropertyResult::fail("R[" + std::to_string(k) + "][" + std::to_string(j) + "] = " +
                                    std::to_string(R(k, j)) + " outside the pair of channel " +
                                    std::to_string(j) + " at position " + std::to_string(c.positions[0]));
  for (int a = 0; a < d; ++a)
    for (int b : {a, partner[a]}) {
      double gab = 0, mag = 0;
      for (int k : {a, partner[a]}) {
        gab += R(k, a) * R(k, b);
        mag += std::fabs(R(k, a) * R(k, b));
      }
      const double budget = m * (P(a) + P(b)) + P(a) * P(b) + 4 * 0x1p-53 * mag;
      const double expect = a == b ? m2 : 0.0;
      const double units = std::fabs(gab - expect) / budget;
      worst = std::max(worst, std::isnan(units) ? HUGE_VAL : units);
      if (!(units <= 1.0))
        return PropertyResult::fail("(R^T R)[" + std::to_string(a) + "][" + std::to_string(b) + "] = " +
                                        std::to_string(gab) + ", expected " + std::to_string(expect) +
                                        " within " + std::to_string(budget) + " at position " +
                                        std::to_string(c.positions[0]),
                                    units);
    }
  for (int i = 0; i < d / 2; ++i) {
    int a, b;
    pair_channels(c.layout, d, i, &a, &b);
    const double det = R(a, a) * R(b, b) - R(a, b) * R(b, a);
    const double budget = 2 * m * (P(a) + P(b)) + 2 * P(a) * P(b) + 4 * 0x1p-53 * m2;
    if (!(det > 0) || !(std::fabs(det - m2) <= budget))
      return PropertyResult::fail("pair " + std::to_string(i) + " block has determinant " +
                                  std::to_string(det) + " (expected +" + std::to_string(m2) +
                                  (det < 0 ? ": a reflection" : "") + ") at position " +
                                  std::to_string(c.positions[0]));
  }
  return {Outcome::kPass, {}, worst, {}};
}

}  // namespace ropecheck::prop
