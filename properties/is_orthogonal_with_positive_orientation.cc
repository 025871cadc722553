// SPDX-License-Identifier: MIT
// Rope/IsOrthogonalWithPositiveOrientation: the matrix R_p the kernel
// applies, built column by column from basis vectors e_j at one position
// (every pair of a head, or a seeded sample of 32 pairs of a wider one),
// satisfies R^T R = m^2 I within budget (R is block diagonal: entries outside
// a pair's block must be exactly zero), and every 2x2 pair block has
// determinant m^2 > 0: a reflection (det -1) fails here; a flipped direction
// (det +1) is left to conformance.
#include <algorithm>
#include <vector>

#include "core/cases/rng.h"
#include "properties/property_helpers.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/layout.h"

namespace ropecheck::prop {

namespace {

// At most this many pairs are probed, so memory and time grow linearly with
// the head, not with its square (all of head_dim 4096 took 19 s and 5.3 GB
// for one case). Smaller heads are probed whole.
constexpr int kMaxProbedPairs = 32;

// The pairs to probe: all, or the first and the last (where loop-bound bugs
// sit) and a sample of the others drawn from the case's data seed.
std::vector<int> probed_pairs(const Case& c, int pairs) {
  std::vector<int> out;
  if (pairs <= kMaxProbedPairs) {
    for (int i = 0; i < pairs; ++i) out.push_back(i);
    return out;
  }
  std::vector<char> taken(static_cast<std::size_t>(pairs), 0);
  taken[0] = taken[static_cast<std::size_t>(pairs - 1)] = 1;
  Rng rng(c.data_seed, 0x0A7Au);
  for (int n = 2; n < kMaxProbedPairs;) {
    const auto i = static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(pairs)));
    if (!taken[i]) taken[i] = 1, ++n;
  }
  for (int i = 0; i < pairs; ++i)
    if (taken[static_cast<std::size_t>(i)]) out.push_back(i);
  return out;
}

}  // namespace

PropertyResult is_orthogonal_with_positive_orientation(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& base = ctx.spec();
  const int d = base.shape.rotary_dim;
  const std::vector<int> pairs = probed_pairs(base, d / 2);
  const std::string sampled =
      static_cast<int>(pairs.size()) < d / 2
          ? " (probing " + std::to_string(pairs.size()) + " of " + std::to_string(d / 2) + " pairs, seeded by the case)"
          : "";
  // One head per tensor, one token per probed basis vector e_j (both
  // channels of each probed pair), all at one position.
  Case c = base;
  std::vector<int> partner(d), token_of(d, -1);
  for (int i = 0; i < d / 2; ++i) {
    int a, b;
    pair_channels(c.layout, d, i, &a, &b);
    partner[a] = b;
    partner[b] = a;
  }
  std::vector<int> columns;
  for (int i : pairs) {
    int a, b;
    pair_channels(c.layout, d, i, &a, &b);
    for (int j : {a, b}) {
      token_of[j] = static_cast<int>(columns.size());
      columns.push_back(j);
    }
  }
  c.tokens = static_cast<std::int64_t>(columns.size());
  c.seq_len = 0;  // one run of the probe tokens
  c.seq_pad = 0;
  c.q_heads = c.kv_heads = 1;
  c.head_pad = c.token_pad = 0;
  c.positions = base.positions_of(std::vector<std::int64_t>(columns.size(), 0));
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const Geometry g = geometry(c);
  // The probe is the same for every kernel (CaseContext::derived).
  CaseContext& probe = ctx.derived("IsOrthogonalWithPositiveOrientation", [&] {
    QkBuffers in;
    for (int w = 0; w < 2; ++w) {
      in.bytes[w].assign(static_cast<std::size_t>(g.elements[w]) * g.esize, 0);  // +0 in every dtype
      for (int j : columns) store_value(in.bytes[w].data(), g.offset(w, token_of[j], 0, j), c.dtype, 1.0);
    }
    return CaseContext(c, std::move(in));
  });
  KernelRun run;
  if (auto f = call_or_fail(impl, c, probe.inputs(), &run)) return *f;
  const ElementBudgets& jd = element_budgets(impl, probe);
  const double m2 = jd.attention_factor * jd.attention_factor;
  // R[k][j] = channel k of the output for input e_j, tensor q. Column j is
  // m times a unit vector inside pair(j), moved by at most P_j (the
  // rotation-invariant pair budget without the angle term: an angle error
  // keeps R orthogonal) and exactly zero outside pair(j).
  auto R = [&](int k, int j) { return stored_value(run.out, 0, g.offset(0, token_of[j], 0, k), c.dtype); };
  auto P = [&](int j) { return jd.pair_budget_no_angle[0][g.offset(0, token_of[j], 0, j)]; };
  const double m = jd.attention_factor;
  const std::string at = " at position " + c.token_positions(0) + sampled;
  double worst = 0;
  for (int j : columns)
    for (int k = 0; k < d; ++k)
      if (k != j && k != partner[j] && !exactly_equal(R(k, j), 0.0))
        return PropertyResult::fail("R[" + std::to_string(k) + "][" + std::to_string(j) + "] = " +
                                    std::to_string(R(k, j)) + " outside the pair of channel " + std::to_string(j) + at);
  for (int a : columns)
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
                                        std::to_string(gab) + ", expected " + std::to_string(expect) + " within " +
                                        std::to_string(budget) + at,
                                    units);
    }
  for (int i : pairs) {
    int a, b;
    pair_channels(c.layout, d, i, &a, &b);
    const double det = R(a, a) * R(b, b) - R(a, b) * R(b, a);
    const double budget = 2 * m * (P(a) + P(b)) + 2 * P(a) * P(b) + 4 * 0x1p-53 * m2;
    if (!(det > 0) || !(std::fabs(det - m2) <= budget))
      return PropertyResult::fail("pair " + std::to_string(i) + " block has determinant " + std::to_string(det) +
                                  " (expected +" + std::to_string(m2) + (det < 0 ? ": a reflection" : "") + ")" + at);
  }
  return {Outcome::kPass, {}, worst, {}};
}

}  // namespace ropecheck::prop
