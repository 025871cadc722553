// SPDX-License-Identifier: MIT
// The exact result of a case on its inputs, element by element, with the terms each budget needs.
#include "core/judge/reference_result.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "core/cases/rng.h"
#include "reference/rotation.h"
#include "reference/rounding.h"
#include "ropecheck/dtype.h"
#include "ropecheck/layout.h"

namespace ropecheck {
namespace {

// Per token and pair: the walk's index into angle/cos/sin.
std::size_t trig_index(std::int64_t token, int pairs, int pair) {
  return static_cast<std::size_t>(token * pairs + pair);
}

void describe_case(const Case& c, ReferenceResult* r) {
  r->geo = geometry(c);
  r->layout = c.layout;
  r->positions = c.positions;
  r->axis_count = c.axis_count();
  ref::validate_axes(c.axes, c.freq, c.shape);
  r->pair_axes = ref::pair_axes(c.axes, c.shape.rotary_dim);
  r->tokens = judged_tokens(c);
  const auto n = static_cast<std::int64_t>(r->tokens.size());
  for (int w = 0; w < 2; ++w) {
    r->pairs[w].clear();
    r->pairs[w].reserve(static_cast<std::size_t>(n * r->geo.heads[w] * (r->geo.rotary_dim / 2)));
  }
}

enum class Mode { kFast, kMpfr, kBoth };
Mode reference_mode() {
  static const Mode m = [] {
    const char* v = std::getenv("ROPECHECK_REFERENCE");
    if (!v || !*v || std::strcmp(v, "fast") == 0) return Mode::kFast;
    if (std::strcmp(v, "mpfr") == 0) return Mode::kMpfr;
    if (std::strcmp(v, "both") == 0) return Mode::kBoth;
    std::fprintf(stderr, "ROPECHECK_REFERENCE must be fast, mpfr or both (got '%s')\n", v);
    std::exit(2);
  }();
  return m;
}

// One exact frequency set per group: the case's rope (1D and shared
// multi-axis), or one per axis over its own rotary dim (per-axis frequencies).
template <class Rope>
std::vector<std::unique_ptr<Rope>> group_ropes(const Case& c, const ref::PairAxes& pa) {
  std::vector<std::unique_ptr<Rope>> ropes;
  for (const int d : pa.group_rotary_dim)
    ropes.push_back(d > 0 ? std::make_unique<Rope>(c.freq, d == c.shape.rotary_dim ? c.shape : ref::HeadShape{d, d})
                          : nullptr);
  return ropes;
}

ReferenceResult compute_fast(const Case& c, const QkBuffers& in, ref::FastStats* stats) {
  ReferenceResult r;
  describe_case(c, &r);
  const ref::PairAxes& pa = r.pair_axes;
  auto ropes = group_ropes<ref::FastReference>(c, pa);
  const Geometry& g = r.geo;
  const int d = g.rotary_dim, pairs = d / 2;
  const bool inverse = c.direction == ROPECHECK_DIRECTION_INVERSE;
  // Per-axis frequencies are default or linear: every group's m is 1.
  for (auto it = ropes.rbegin(); it != ropes.rend(); ++it)
    if (*it) r.attention_factor = (*it)->attention_factor();
  for (int i = 0; i < pairs; ++i)
    r.inv_freq.push_back(ropes[static_cast<std::size_t>(pa.group[i])]->inv_freq()[static_cast<std::size_t>(pa.index[i])]);
  // Per judged token and pair: the trig row of the pair's group at the
  // pair's position (one lookup per token for 1D).
  std::vector<const ref::FastTrigRow*> rows;
  rows.reserve(r.tokens.size() * static_cast<std::size_t>(pairs));
  for (const std::int64_t tok : r.tokens) {
    const ref::FastTrigRow* one = c.axes.multi() ? nullptr : &ropes[0]->trig(c.position(tok));
    for (int i = 0; i < pairs; ++i) {
      const ref::FastTrigRow& row = one ? *one : ropes[static_cast<std::size_t>(pa.group[i])]->trig(r.pair_position(tok, i));
      rows.push_back(&row);
      const ref::FastTrig& t = row.pair[static_cast<std::size_t>(pa.index[i])];
      r.angle.push_back(t.angle_d);
      r.cos.push_back(t.cos_d);
      r.sin.push_back(t.sin_d);
    }
  }
  std::vector<int> ca(pairs), cb(pairs);
  for (int i = 0; i < pairs; ++i) pair_channels(c.layout, d, i, &ca[i], &cb[i]);
  for (int w = 0; w < 2; ++w) {
    const unsigned char* base = in.bytes[w].data();
    auto& out = r.pairs[w];
    for (std::size_t k = 0; k < r.tokens.size(); ++k) {
      const std::int64_t tok = r.tokens[k];
      const ref::FastTrigRow* const* row = &rows[k * static_cast<std::size_t>(pairs)];
      for (int h = 0; h < g.heads[w]; ++h) {
        const std::int64_t off = g.offset(w, tok, h, 0);
        for (int i = 0; i < pairs; ++i) {
          // Stored values are exact doubles; the MPFR path's Real of them is
          // the identity.
          ReferencePair p;
          p.x = load_as_double(base, static_cast<std::size_t>(off + ca[i]), c.dtype);
          p.y = load_as_double(base, static_cast<std::size_t>(off + cb[i]), c.dtype);
          const ref::FastPairResult v = ropes[static_cast<std::size_t>(pa.group[i])]->rotate_pair(
              p.x, p.y, *row[i], pa.index[i], inverse, c.dtype);
          for (int e = 0; e < 2; ++e) {
            p.exact.value[e] = v.value[e];
            p.exact.rounded[e] = v.rounded[e];
          }
          out.push_back(p);
        }
      }
    }
  }
  if (stats) {
    ref::FastStats total;
    for (const auto& rope : ropes)
      if (rope) total += rope->stats();
    *stats = total;
  }
  return r;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

std::vector<std::int64_t> judged_tokens(const Case& c) {
  std::vector<std::int64_t> t;
  if (c.rotated_elements() <= kSampleAbove || c.tokens <= kSampledTokens) {
    for (std::int64_t i = 0; i < c.tokens; ++i) t.push_back(i);
    return t;
  }
  std::vector<char> take(static_cast<std::size_t>(c.tokens), 0);
  std::int64_t n = 0;
  const auto add = [&](std::int64_t i) {
    if (!take[static_cast<std::size_t>(i)] && n < kSampledTokens) take[static_cast<std::size_t>(i)] = 1, ++n;
  };
  const std::int64_t per = c.batch_seq_len() > 0 ? c.batch_seq_len() : c.tokens;
  for (std::int64_t s = 0; s < c.sequences() && n < kSampledTokens / 2; ++s) {
    add(s * per);
    add(s * per + per - 1);
  }
  Rng rng(c.data_seed ^ 0x73616d706c65ULL);  // "sample"
  while (n < kSampledTokens) add(rng.range(0, c.tokens - 1));
  for (std::int64_t i = 0; i < c.tokens; ++i)
    if (take[static_cast<std::size_t>(i)]) t.push_back(i);
  return t;
}

ReferenceElement ReferenceResult::element(int w, std::size_t index) const {
  const auto np = static_cast<std::size_t>(geo.rotary_dim / 2);
  const std::size_t k = index / 2, th = k / np;
  const auto heads = static_cast<std::size_t>(geo.heads[w]);
  return element_at(w, index, static_cast<std::int64_t>(th / heads), static_cast<int>(th % heads),
                    static_cast<int>(k % np));
}

ReferenceElement ReferenceResult::element_at(int w, std::size_t index, std::int64_t place, int h, int i) const {
  const std::int64_t tok = tokens[static_cast<std::size_t>(place)];
  const int side = static_cast<int>(index % 2);
  int a, b;
  pair_channels(layout, geo.rotary_dim, i, &a, &b);
  const ReferencePair& p = pairs[static_cast<std::size_t>(w)][index / 2];
  const std::size_t t = trig_index(place, geo.rotary_dim / 2, i);
  ReferenceElement e;
  e.terms = pair_terms({.x = p.x,
                        .y = p.y,
                        .value = {p.exact.value[0], p.exact.value[1]},
                        .cos_a = cos[t],
                        .sin_a = sin[t],
                        .abs_angle = std::fabs(angle[t]),
                        .position = pair_position(tok, i),
                        .pair = pair_axes.index[static_cast<std::size_t>(i)],
                        .freq_group = pair_axes.group[static_cast<std::size_t>(i)]})[side];
  e.rounded = p.exact.rounded[side];
  e.channel = side == 0 ? a : b;
  e.offset = geo.offset(w, tok, h, e.channel);
  e.token = tok;
  e.head = h;
  return e;
}

void assemble_reference(
    const Case& c, const QkBuffers& in,
    const std::function<ExactPair(int w, std::int64_t token, int head, int pair, int a, int b)>& pair_values,
    ReferenceResult* r) {
  describe_case(c, r);
  const Geometry& g = r->geo;
  const int d = g.rotary_dim, pairs = d / 2;
  for (int w = 0; w < 2; ++w) {
    for (const std::int64_t tok : r->tokens) {
      for (int h = 0; h < g.heads[w]; ++h) {
        const std::int64_t off = g.offset(w, tok, h, 0);
        for (int i = 0; i < pairs; ++i) {
          int a, b;
          pair_channels(c.layout, d, i, &a, &b);
          ReferencePair p;
          p.x = load_as_double(in.bytes[w].data(), static_cast<std::size_t>(off + a), c.dtype);
          p.y = load_as_double(in.bytes[w].data(), static_cast<std::size_t>(off + b), c.dtype);
          p.exact = pair_values(w, tok, h, i, a, b);
          r->pairs[w].push_back(p);
        }
      }
    }
  }
}

ReferenceResult compute_reference_mpfr(const Case& c, const QkBuffers& in) {
  const Geometry g = geometry(c);
  ref::validate_axes(c.axes, c.freq, c.shape);
  const ref::PairAxes pa = ref::pair_axes(c.axes, c.shape.rotary_dim);
  auto ropes = group_ropes<ref::ReferenceRope<ref::Real>>(c, pa);
  ReferenceResult r;
  for (auto it = ropes.rbegin(); it != ropes.rend(); ++it)
    if (*it) r.attention_factor = (*it)->freqs().attention_factor.convert_to<double>();
  const int hd = g.head_dim, pairs = g.rotary_dim / 2;
  const auto rope_of = [&](int i) -> ref::ReferenceRope<ref::Real>& { return *ropes[static_cast<std::size_t>(pa.group[i])]; };
  for (int i = 0; i < pairs; ++i)
    r.inv_freq.push_back(rope_of(i).freqs().inv_freq[static_cast<std::size_t>(pa.index[i])].convert_to<double>());
  const auto position_of = [&](std::int64_t tok, int i) {
    return c.position(tok, pa.axis[static_cast<std::size_t>(i)]);
  };
  for (const std::int64_t tok : judged_tokens(c)) {
    for (int i = 0; i < pairs; ++i) {
      const std::int64_t pos = position_of(tok, i);
      const int j = pa.index[i];
      r.angle.push_back(rope_of(i).angle(pos, j).convert_to<double>());
      r.cos.push_back(rope_of(i).trig(pos).cos[static_cast<std::size_t>(j)].convert_to<double>());
      r.sin.push_back(rope_of(i).trig(pos).sin[static_cast<std::size_t>(j)].convert_to<double>());
    }
  }
  // Each head is rotated once, when its first pair is asked for: whole (1D)
  // or pair by pair at each pair's own position and frequency (multi-axis).
  std::vector<ref::Real> x(hd), y(hd);
  int have_w = -1, have_h = -1;
  std::int64_t have_tok = -1;
  assemble_reference(c, in, [&](int w, std::int64_t tok, int h, int, int a, int b) {
    if (w != have_w || tok != have_tok || h != have_h) {
      const std::int64_t off = g.offset(w, tok, h, 0);
      for (int j = 0; j < hd; ++j)
        x[j] = ref::Real(load_as_double(in.bytes[w].data(), static_cast<std::size_t>(off + j), c.dtype));
      if (!c.axes.multi()) {
        ropes[0]->rotate(x.data(), y.data(), c.position(tok), c.layout, c.direction);
      } else {
        y = x;
        for (int i = 0; i < pairs; ++i) {
          int ia, ib;
          pair_channels(c.layout, g.rotary_dim, i, &ia, &ib);
          rope_of(i).rotate_one_pair(x.data(), y.data(), ia, ib, position_of(tok, i), pa.index[i], c.direction);
        }
      }
      have_w = w, have_tok = tok, have_h = h;
    }
    ExactPair p;
    p.value[0] = y[a].convert_to<double>();
    p.value[1] = y[b].convert_to<double>();
    p.rounded[0] = ref::round_to_dtype(y[a], c.dtype);
    p.rounded[1] = ref::round_to_dtype(y[b], c.dtype);
    return p;
  }, &r);
  return r;
}

ErrorModel case_error_model(const Policy& policy, const Case& c, double attention_factor,
                            std::optional<ropecheck_dtype_t> caller_cache) {
  const ref::PairAxes pa = ref::pair_axes(c.axes, c.shape.rotary_dim);
  return ErrorModel(policy, {.spec = c.freq,
                             .shape = c.shape,
                             .storage = c.dtype,
                             .attention_factor = attention_factor,
                             .group_rotary_dims = pa.group_rotary_dim,
                             .caller_cache = caller_cache});
}


ReferenceResult compute_reference(const Case& c, const QkBuffers& in, ref::FastStats* stats) {
  switch (reference_mode()) {
    case Mode::kMpfr:
      return compute_reference_mpfr(c, in);
    case Mode::kBoth: {
      ReferenceResult r = compute_fast(c, in, stats);
      const std::string diff = first_difference(r, compute_reference_mpfr(c, in));
      if (!diff.empty()) {
        std::fprintf(stderr, "ROPECHECK_REFERENCE=both: the fast and MPFR paths differ on %s: %s\n",
                     c.describe().c_str(), diff.c_str());
        std::abort();
      }
      return r;
    }
    case Mode::kFast:
      break;
  }
  return compute_fast(c, in, stats);
}

std::string first_difference(const ReferenceResult& a, const ReferenceResult& b) {
  if (!same_bits(a.attention_factor, b.attention_factor)) return "attention_factor";
  const auto table = [](const char* name, const std::vector<double>& x,
                        const std::vector<double>& y) -> std::string {
    if (x.size() != y.size()) return std::string(name) + " size";
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!same_bits(x[i], y[i])) return std::string(name) + "[" + std::to_string(i) + "]";
    return {};
  };
  for (auto s : {table("inv_freq", a.inv_freq, b.inv_freq), table("angle", a.angle, b.angle),
                 table("cos", a.cos, b.cos), table("sin", a.sin, b.sin)})
    if (!s.empty()) return s;
  for (int w = 0; w < 2; ++w) {
    const char* t = w == 0 ? "q" : "k";
    if (a.pairs[w].size() != b.pairs[w].size()) return std::string(t) + " pair count";
    for (std::size_t k = 0; k < a.pairs[w].size(); ++k) {
      const ReferencePair &p = a.pairs[w][k], &q = b.pairs[w][k];
      const double pv[] = {p.x, p.y, p.exact.value[0], p.exact.value[1], p.exact.rounded[0], p.exact.rounded[1]};
      const double qv[] = {q.x, q.y, q.exact.value[0], q.exact.value[1], q.exact.rounded[0], q.exact.rounded[1]};
      const char* what[] = {"x", "y", "value[0]", "value[1]", "rounded[0]", "rounded[1]"};
      for (int f = 0; f < 6; ++f)
        if (!same_bits(pv[f], qv[f])) {
          const ReferenceElement e = a.element(w, 2 * k + (f % 2));
          char buf[256];
          std::snprintf(buf, sizeof buf, "%s of %s pair %zu (token %lld, head %d, channel %d): %a vs %a", what[f],
                        t, k, static_cast<long long>(e.token), e.head, e.channel, pv[f], qv[f]);
          return buf;
        }
    }
  }
  return {};
}

}  // namespace ropecheck
