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
  KernelRun a, b;
  if (auto f = call_or_fail(impl, ip, in, &a)) return *f;
  if (auto f = call_or_fail(impl, oop, in, &b)) return *f;
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
