// SPDX-License-Identifier: MIT
// Rope/IsOrthogonalWithPositiveOrientation: the matrix R_p the kernel
// applies, built column by column from basis vectors e_j at one position
// (every pair of a head, or a seeded sample of 32 pairs of a wider one),
// satisfies R^T R = m^2 I within budget (R is block diagonal: entries outside
// a pair's block must be exactly zero), and every 2x2 pair block has
// determinant m^2 > 0: a reflection (det -1) fails here; a flipped direction
// (det +1) is left to conformance.
#include <algorithm>
#include <optional>
#include <string>
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

// The probe: one head per tensor, one token per probed basis vector e_j
// (both channels of each probed pair), all at one position.
struct Probe {
  Case c;
  std::vector<int> columns;   // the channels j probed, in token order
  std::vector<int> token_of;  // channel j -> its token (-1: not probed)
  std::vector<int> partner;   // channel j -> the other channel of its pair
};

Probe make_probe(const Case& base, const std::vector<int>& pairs) {
  const int d = base.shape.rotary_dim;
  Probe p{base, {}, std::vector<int>(d, -1), std::vector<int>(d)};
  for (int i = 0; i < d / 2; ++i) {
    int a, b;
    pair_channels(base.layout, d, i, &a, &b);
    p.partner[a] = b;
    p.partner[b] = a;
  }
  for (int i : pairs) {
    int a, b;
    pair_channels(base.layout, d, i, &a, &b);
    for (int j : {a, b}) {
      p.token_of[j] = static_cast<int>(p.columns.size());
      p.columns.push_back(j);
    }
  }
  Case& c = p.c;
  c.tokens = static_cast<std::int64_t>(p.columns.size());
  c.seq_len = 0;  // one run of the probe tokens
  c.seq_pad = 0;
  c.q_heads = c.kv_heads = 1;
  c.head_pad = c.token_pad = 0;
  c.positions = base.positions_of(std::vector<std::int64_t>(p.columns.size(), 0));
  return p;
}

// The kernel's matrix on the probe: R(k, j) = channel k of the output for
// input e_j, tensor q. Column j is m times a unit vector inside pair(j),
// moved by at most P(j) (the rotation-invariant pair budget without the
// angle term: an angle error keeps R orthogonal) and exactly zero outside
// pair(j).
struct Matrix {
  const Probe& p;
  const Geometry& g;
  const KernelRun& run;
  const ElementBudgets& jd;
  double R(int k, int j) const {
    return stored_value(run.out, 0, g.offset(0, p.token_of[j], 0, k), p.c.dtype);
  }
  double P(int j) const { return jd.pair_budget_no_angle[0][g.offset(0, p.token_of[j], 0, j)]; }
};

// Entries outside each column's pair block must be exactly zero.
std::optional<PropertyResult> off_block_entries(const Matrix& mx, const std::string& at) {
  const int d = mx.p.c.shape.rotary_dim;
  for (int j : mx.p.columns)
    for (int k = 0; k < d; ++k)
      if (k != j && k != mx.p.partner[j] && !exactly_equal(mx.R(k, j), 0.0))
        return PropertyResult::fail("R[" + std::to_string(k) + "][" + std::to_string(j) + "] = " +
                                    std::to_string(mx.R(k, j)) + " outside the pair of channel " + std::to_string(j) +
                                    at);
  return std::nullopt;
}

// R^T R = m^2 I within budget on each pair block; the worst error in budget
// units goes to *worst.
std::optional<PropertyResult> gram_entries(const Matrix& mx, const std::string& at, double* worst) {
  const double m = mx.jd.attention_factor, m2 = m * m;
  for (int a : mx.p.columns)
    for (int b : {a, mx.p.partner[a]}) {
      double gab = 0, mag = 0;
      for (int k : {a, mx.p.partner[a]}) {
        gab += mx.R(k, a) * mx.R(k, b);
        mag += std::fabs(mx.R(k, a) * mx.R(k, b));
      }
      const double budget = m * (mx.P(a) + mx.P(b)) + mx.P(a) * mx.P(b) + 4 * 0x1p-53 * mag;
      const double expect = a == b ? m2 : 0.0;
      const double units = std::fabs(gab - expect) / budget;
      *worst = std::max(*worst, std::isnan(units) ? HUGE_VAL : units);
      if (!(units <= 1.0))
        return PropertyResult::fail("(R^T R)[" + std::to_string(a) + "][" + std::to_string(b) + "] = " +
                                        std::to_string(gab) + ", expected " + std::to_string(expect) + " within " +
                                        std::to_string(budget) + at,
                                    units);
    }
  return std::nullopt;
}

// Every probed pair block has determinant m^2 > 0 (a reflection has -m^2).
std::optional<PropertyResult> block_determinants(const Matrix& mx, const std::vector<int>& pairs,
                                                 const std::string& at) {
  const double m = mx.jd.attention_factor, m2 = m * m;
  for (int i : pairs) {
    int a, b;
    pair_channels(mx.p.c.layout, mx.p.c.shape.rotary_dim, i, &a, &b);
    const double det = mx.R(a, a) * mx.R(b, b) - mx.R(a, b) * mx.R(b, a);
    const double budget = 2 * m * (mx.P(a) + mx.P(b)) + 2 * mx.P(a) * mx.P(b) + 4 * 0x1p-53 * m2;
    if (!(det > 0) || !(std::fabs(det - m2) <= budget))
      return PropertyResult::fail("pair " + std::to_string(i) + " block has determinant " + std::to_string(det) +
                                  " (expected +" + std::to_string(m2) + (det < 0 ? ": a reflection" : "") + ")" + at);
  }
  return std::nullopt;
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
  const Probe p = make_probe(base, pairs);
  const Case& c = p.c;
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const Geometry g = geometry(c);
  // The probe is the same for every kernel (CaseContext::derived).
  CaseContext& probe = ctx.derived("IsOrthogonalWithPositiveOrientation", [&] {
    QkBuffers in;
    for (int w = 0; w < 2; ++w) {
      in.bytes[w].assign(static_cast<std::size_t>(g.elements[w]) * g.esize, 0);  // +0 in every dtype
      for (int j : p.columns) store_value(in.bytes[w].data(), g.offset(w, p.token_of[j], 0, j), c.dtype, 1.0);
    }
    return CaseContext(c, std::move(in));
  });
  KernelRun run;
  if (auto f = call_or_fail(impl, c, probe.inputs(), &run)) return *f;
  const Matrix mx{p, g, run, element_budgets(impl, probe)};
  const std::string at = " at position " + c.token_positions(0) + sampled;
  double worst = 0;
  if (auto f = off_block_entries(mx, at)) return *f;
  if (auto f = gram_entries(mx, at, &worst)) return *f;
  if (auto f = block_determinants(mx, pairs, at)) return *f;
  return {Outcome::kPass, {}, worst, {}};
}

}  // namespace ropecheck::prop
