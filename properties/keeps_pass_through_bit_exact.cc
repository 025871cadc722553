// SPDX-License-Identifier: MIT
// Rope/KeepsPassThroughBitExact: channels [rotary_dim, head_dim) come out
// with the input's bits. A correct kernel has no reason to touch them.
#include <cstring>

#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult keeps_pass_through_bit_exact(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (c.shape.rotary_dim == c.shape.head_dim) return PropertyResult::skip("no pass-through channels");
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const QkBuffers& in = ctx.inputs();
  const KernelRun* base = nullptr;
  if (auto f = base_run_or_fail(impl, ctx, &base)) return *f;
  const KernelRun& run = *base;
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = g.rotary_dim; j < g.head_dim; ++j) {
          const std::int64_t off = g.offset(w, t, h, j);
          if (std::memcmp(run.out.bytes[w].data() + off * g.esize, in.bytes[w].data() + off * g.esize, g.esize) != 0)
            return PropertyResult::fail("pass-through channel modified at " + element_name(c, w, t, h, j) + ": " +
                                        std::to_string(stored_value(run.out, w, off, c.dtype)) + " vs input " +
                                        std::to_string(stored_value(in, w, off, c.dtype)));
        }
  return {};
}

}  // namespace ropecheck::prop
