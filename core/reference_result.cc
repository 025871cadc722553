#include "core/reference_result.h"

#include <cmath>

#include "reference/rotation.h"
#include "reference/rounding.h"
#include "ropecheck/dtype.h"
#include "ropecheck/layout.h"

namespace ropecheck {

void assemble_reference(
    const Case& c, const QkBuffers& in,
    const std::function<ExactPair(int w, std::int64_t token, int head, int pair, int a, int b)>& pair_values,
    ReferenceResult* r) {
  const Geometry g = geometry(c);
  const int d = g.rotary_dim, pairs = d / 2;
  for (int w = 0; w < 2; ++w) {
    auto& out = r->elements[w];
    out.clear();
    out.reserve(static_cast<std::size_t>(c.tokens * g.heads[w] * d));
    for (std::int64_t tok = 0; tok < c.tokens; ++tok) {
      const std::int64_t pos = c.positions[static_cast<std::size_t>(tok)];
      for (int h = 0; h < g.heads[w]; ++h) {
        const std::int64_t off = g.offset(w, tok, h, 0);
        for (int i = 0; i < pairs; ++i) {
          int a, b;
          pair_channels(c.layout, d, i, &a, &b);
          const ExactPair v = pair_values(w, tok, h, i, a, b);
          const std::size_t k = static_cast<std::size_t>(tok * pairs + i);
          const auto terms =
              pair_terms(load_as_double(in.bytes[w].data(), static_cast<std::size_t>(off + a), c.dtype),
                         load_as_double(in.bytes[w].data(), static_cast<std::size_t>(off + b), c.dtype), v.value[0],
                         v.value[1], r->cos[k], r->sin[k], std::fabs(r->angle[k]), pos, i);
          for (int side = 0; side < 2; ++side) {
            ReferenceElement e;
            e.terms = terms[side];
            e.channel = side == 0 ? a : b;
            e.rounded = v.rounded[side];
            e.offset = off + e.channel;
            e.token = tok;
            e.head = h;
            out.push_back(e);
          }
        }
      }
    }
  }
}

ReferenceResult compute_reference(const Case& c, const QkBuffers& in) {
  const Geometry g = geometry(c);
  ref::ReferenceRope<ref::Real> rope(c.freq, c.shape);
  ReferenceResult r;
  r.attention_factor = rope.freqs().attention_factor.convert_to<double>();
  const int hd = g.head_dim, pairs = g.rotary_dim / 2;
  for (const ref::Real& w : rope.freqs().inv_freq) r.inv_freq.push_back(w.convert_to<double>());
  for (std::int64_t tok = 0; tok < c.tokens; ++tok) {
    const std::int64_t pos = c.positions[static_cast<std::size_t>(tok)];
    const auto& trig = rope.trig(pos);
    for (int i = 0; i < pairs; ++i) {
      r.angle.push_back(rope.angle(pos, i).convert_to<double>());
      r.cos.push_back(trig.cos[i].convert_to<double>());
      r.sin.push_back(trig.sin[i].convert_to<double>());
    }
  }
  // Each head is rotated once, when its first pair is asked for.
  std::vector<ref::Real> x(hd), y(hd);
  int have_w = -1, have_h = -1;
  std::int64_t have_tok = -1;
  assemble_reference(c, in, [&](int w, std::int64_t tok, int h, int, int a, int b) {
    if (w != have_w || tok != have_tok || h != have_h) {
      const std::int64_t off = g.offset(w, tok, h, 0);
      for (int j = 0; j < hd; ++j)
        x[j] = ref::Real(load_as_double(in.bytes[w].data(), static_cast<std::size_t>(off + j), c.dtype));
      rope.rotate(x.data(), y.data(), c.positions[static_cast<std::size_t>(tok)], c.layout, c.direction);
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

}  // namespace ropecheck
