// SPDX-License-Identifier: MIT
// A case run through both reference paths and compared bit for bit.
#include "core/test/fast_reference_check.h"

#include <cstdio>

#include <gtest/gtest.h>

#include "core/judge/reference_result.h"
#include "ropecheck/dtype.h"
#include "ropecheck/layout.h"

namespace ropecheck::test {

void Tally::add(const Tally& o) {
  cases += o.cases;
  elements += o.elements;
  differences += o.differences;
  stats += o.stats;
  if (first.empty()) first = o.first;
}

std::string Tally::line() const {
  char b[320];
  const auto pct = [](std::uint64_t n, std::uint64_t d) { return d ? 100.0 * static_cast<double>(n) / static_cast<double>(d) : 0.0; };
  std::snprintf(b, sizeof b,
                "cases %llu, elements %llu, differences %llu; MPFR fallbacks: elements %llu (%.3g%%), "
                "(position, pair) entries %llu of %llu (%.3g%%), frequencies %llu cases",
                static_cast<unsigned long long>(cases), static_cast<unsigned long long>(elements),
                static_cast<unsigned long long>(differences), static_cast<unsigned long long>(stats.fallbacks),
                pct(stats.fallbacks, stats.elements), static_cast<unsigned long long>(stats.trig_fallbacks),
                static_cast<unsigned long long>(stats.trig_entries), pct(stats.trig_fallbacks, stats.trig_entries),
                static_cast<unsigned long long>(stats.freq_fallbacks));
  return b;
}

void compare_paths(const Case& c, const QkBuffers& in, Tally* t) {
  ref::FastStats st;
  const ReferenceResult fast = compute_reference(c, in, &st);
  const ReferenceResult mpfr = compute_reference_mpfr(c, in);
  ++t->cases;
  t->elements += 2 * (fast.pairs[0].size() + fast.pairs[1].size());
  t->stats += st;
  const std::string diff = first_difference(fast, mpfr);
  if (!diff.empty()) {
    ++t->differences;
    if (t->first.empty()) t->first = diff + " in " + c.describe();
  }
}

Case edge_case(const ref::FreqSpec& f, int pairs, ropecheck_dtype_t dtype, std::vector<std::int64_t> positions) {
  Case c;
  c.freq = f;
  c.shape = {2 * pairs, 2 * pairs};
  c.dtype = dtype;
  c.positions = std::move(positions);
  c.tokens = static_cast<std::int64_t>(c.positions.size());
  c.q_heads = c.kv_heads = 1;
  return c;
}

QkBuffers edge_inputs(const Case& c, const PairFn& fn) {
  const Geometry g = geometry(c);
  QkBuffers in;
  for (int w = 0; w < 2; ++w) {
    in.bytes[w].assign(static_cast<std::size_t>(g.elements[w]) * g.esize, 0);
    for (std::int64_t tok = 0; tok < c.tokens; ++tok)
      for (int i = 0; i < g.rotary_dim / 2; ++i) {
        int a, b;
        pair_channels(c.layout, g.rotary_dim, i, &a, &b);
        const auto [x, y] = fn(w, tok, i);
        store_value(in.bytes[w].data(), g.offset(w, tok, 0, a), c.dtype, x);
        store_value(in.bytes[w].data(), g.offset(w, tok, 0, b), c.dtype, y);
      }
  }
  return in;
}

void compare_all_ways(Case c, const PairFn& fn, Tally* t) {
  for (auto layout : {ROPECHECK_LAYOUT_INTERLEAVED, ROPECHECK_LAYOUT_HALF_SPLIT})
    for (auto dir : {ROPECHECK_DIRECTION_FORWARD, ROPECHECK_DIRECTION_INVERSE}) {
      c.layout = layout;
      c.direction = dir;
      compare_paths(c, edge_inputs(c, fn), t);
    }
}

ref::FreqSpec default_spec(std::optional<double> m) {
  ref::FreqSpec f;
  f.attention_factor = m;
  return f;
}

ref::FreqSpec explicit_spec(std::vector<double> w, std::optional<double> m) {
  ref::FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_EXPLICIT;
  f.inv_freq = std::move(w);
  f.attention_factor = m;
  return f;
}

void expect_identical(const char* what, const Tally& t) {
  std::printf("%s: %s\n", what, t.line().c_str());
  EXPECT_EQ(t.differences, 0u) << what << ": first difference: " << t.first;
  EXPECT_GT(t.elements, 0u) << what;
}

}  // namespace ropecheck::test
