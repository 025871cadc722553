// Properties that must hold bit for bit, because a correct kernel has no
// reason to differ: Rope/KeepsPassThroughBitExact (channels [rotary_dim,
// head_dim) untouched), Rope/InPlaceMatchesOutOfPlace, and
// Rope/RotatesQAndKAlike (q and k heads holding the same data at the same
// position come out identical).
#include <algorithm>
#include <cstring>

#include "ropecheck/float_compare.h"
#include "support.h"

namespace ropecheck::prop {

PropertyResult keeps_pass_through(const ropecheck_impl_t& impl, const Case& c) {
  if (c.shape.rotary_dim == c.shape.head_dim) return PropertyResult::skip("no pass-through channels");
  if (auto s = scope(impl, {&c})) return *s;
  const Tensors in = make_inputs(c);
  RunResult run;
  if (auto f = run_or_fail(impl, c, in, &run)) return *f;
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = g.rotary_dim; j < g.head_dim; ++j) {
          const std::int64_t off = g.offset(w, t, h, j);
          if (std::memcmp(run.out.t[w].data() + off * g.esize, in.t[w].data() + off * g.esize, g.esize) != 0)
            return PropertyResult::fail("pass-through channel modified at " + where(c, w, t, h, j) + ": " +
                                        std::to_string(element(run.out, w, off, c.dtype)) + " vs input " +
                                        std::to_string(element(in, w, off, c.dtype)));
        }
  return {};
}

PropertyResult in_place_matches_out_of_place(const ropecheck_impl_t& impl, const Case& base) {
  Case ip = base, oop = base;
  ip.in_place = true;
  oop.in_place = false;
  if (auto s = scope(impl, {&ip, &oop})) return *s;
  const Tensors in = make_inputs(ip);
  RunResult a, b;
  if (auto f = run_or_fail(impl, ip, in, &a)) return *f;
  if (auto f = run_or_fail(impl, oop, in, &b)) return *f;
  const Geometry g = geometry(ip);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < ip.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = 0; j < g.head_dim; ++j)
          if (!same_value(a.out, b.out, w, g.offset(w, t, h, j), ip.dtype))
            return PropertyResult::fail("in-place and out-of-place differ at " + where(ip, w, t, h, j) + ": " +
                                        std::to_string(element(a.out, w, g.offset(w, t, h, j), ip.dtype)) +
                                        " vs " + std::to_string(element(b.out, w, g.offset(w, t, h, j), ip.dtype)));
  return {};
}

PropertyResult rotates_q_and_k_alike(const ropecheck_impl_t& impl, const Case& c) {
  if (auto s = scope(impl, {&c})) return *s;
  const Geometry g = geometry(c);
  Tensors in = make_inputs(c);
  for (std::int64_t t = 0; t < c.tokens; ++t)
    for (int h = 0; h < c.kv_heads; ++h)
      std::copy_n(in.t[0].begin() + g.offset(0, t, h, 0) * g.esize, g.head_dim * g.esize,
                  in.t[1].begin() + g.offset(1, t, h, 0) * g.esize);
  RunResult run;
  if (auto f = run_or_fail(impl, c, in, &run)) return *f;
  for (std::int64_t t = 0; t < c.tokens; ++t)
    for (int h = 0; h < c.kv_heads; ++h)
      for (int j = 0; j < g.head_dim; ++j) {
        const double q = element(run.out, 0, g.offset(0, t, h, j), c.dtype);
        const double k = element(run.out, 1, g.offset(1, t, h, j), c.dtype);
        if (!same_value(run.out, run.out, 0, g.offset(0, t, h, j), c.dtype) ||
            !(exactly_equal(q, k) || (std::isnan(q) && std::isnan(k))))
          return PropertyResult::fail("q and k with the same data differ at token " + std::to_string(t) +
                                      ", head " + std::to_string(h) + ", channel " + std::to_string(j) +
                                      " position " + std::to_string(c.positions[t]) + ": " +
                                      std::to_string(q) + " vs " + std::to_string(k));
      }
  return {};
}

}  // namespace ropecheck::prop
