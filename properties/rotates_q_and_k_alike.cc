// Rope/RotatesQAndKAlike: q and k heads holding the same data at the same
// position come out bit-identical; a kernel has no reason to treat them
// differently (catches k rotated with q's head count or stride).
#include <algorithm>

#include "properties/property_helpers.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::prop {

PropertyResult rotates_q_and_k_alike(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const Geometry g = geometry(c);
  QkBuffers in = ctx.inputs();
  for (std::int64_t t = 0; t < c.tokens; ++t)
    for (int h = 0; h < c.kv_heads; ++h)
      std::copy_n(in.bytes[0].begin() + g.offset(0, t, h, 0) * g.esize, g.head_dim * g.esize,
                  in.bytes[1].begin() + g.offset(1, t, h, 0) * g.esize);
  KernelRun run;
  if (auto f = call_or_fail(impl, c, in, &run)) return *f;
  for (std::int64_t t = 0; t < c.tokens; ++t)
    for (int h = 0; h < c.kv_heads; ++h)
      for (int j = 0; j < g.head_dim; ++j) {
        const double q = stored_value(run.out, 0, g.offset(0, t, h, j), c.dtype);
        const double k = stored_value(run.out, 1, g.offset(1, t, h, j), c.dtype);
        if (!same_value(run.out, run.out, 0, g.offset(0, t, h, j), c.dtype) ||
            !(exactly_equal(q, k) || (std::isnan(q) && std::isnan(k))))
          return PropertyResult::fail("q and k with the same data differ at token " + std::to_string(t) +
                                      ", head " + std::to_string(h) + ", channel " + std::to_string(j) +
                                      " position " + std::to_string(c.positions[static_cast<std::size_t>(t)]) +
                                      ": " + std::to_string(q) + " vs " + std::to_string(k));
      }
  return {};
}

}  // namespace ropecheck::prop
