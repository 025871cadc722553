// SPDX-License-Identifier: MIT
// Rope/InPlaceMatchesOutOfPlace: the same inputs rotated in place and into
// a separate output give bit-identical results (+0 and -0 as one value).
#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult in_place_matches_out_of_place(const ropecheck_impl_t& impl, CaseContext& ctx) {
  Case ip = ctx.spec(), oop = ctx.spec();
  ip.in_place = true;
  oop.in_place = false;
  if (auto s = skip_outside_capabilities(impl, {&ip, &oop})) return *s;
  const QkBuffers& in = ctx.inputs();
  // The case itself is one of the two: its run is the one every property
  // shares (CaseContext::base_run).
  KernelRun other;
  const KernelRun* base = nullptr;
  if (auto f = base_run_or_fail(impl, ctx, &base)) return *f;
  if (auto f = call_or_fail(impl, ctx.spec().in_place ? oop : ip, in, &other)) return *f;
  const KernelRun& a = ctx.spec().in_place ? *base : other;
  const KernelRun& b = ctx.spec().in_place ? other : *base;
  const Geometry g = geometry(ip);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < ip.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = 0; j < g.head_dim; ++j)
          if (!same_value(a.out, b.out, w, g.offset(w, t, h, j), ip.dtype))
            return PropertyResult::fail("in-place and out-of-place differ at " + element_name(ip, w, t, h, j) + ": " +
                                        std::to_string(stored_value(a.out, w, g.offset(w, t, h, j), ip.dtype)) +
                                        " vs " + std::to_string(stored_value(b.out, w, g.offset(w, t, h, j), ip.dtype)));
  return {};
}

}  // namespace ropecheck::prop
