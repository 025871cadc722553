// SPDX-License-Identifier: MIT
// Rope/IsAxisSeparable: in multi-axis RoPE a pair rotates with the position
// of its own axis only (ropecheck/axes.h), so moving every token's position
// on one axis leaves the bits of every pair of the other axes unchanged.
// Each axis is moved in turn. It catches, with no reference involved, a
// kernel that gives a pair another axis's position: sections misassigned,
// interleaved read as sections, the temporal row read for every pair
// (SGLang #35345). How the moved axis's pairs change is ConformsToReference's.
#include <cstring>
#include <string>

#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult is_axis_separable(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (!c.axes.multi()) return PropertyResult::skip("one position axis");
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const QkBuffers& in = ctx.inputs();
  const KernelRun* base_run = nullptr;
  if (auto f = base_run_or_fail(impl, ctx, &base_run)) return *f;
  const KernelRun& base = *base_run;
  const ref::PairAxes pa = ref::pair_axes(c.axes, c.shape.rotary_dim);
  const int axes = c.axis_count();
  const Geometry g = geometry(c);
  for (int axis = 0; axis < axes; ++axis) {
    const std::int64_t delta = draw_shift(c, 0x53455041ULL + static_cast<std::uint64_t>(axis), 1 << 12);
    if (delta == 0) continue;
    Case moved = c;
    for (std::int64_t t = 0; t < c.tokens; ++t) moved.positions[static_cast<std::size_t>(t * axes + axis)] += delta;
    if (auto s = skip_outside_capabilities(impl, {&moved})) continue;
    KernelRun run;
    if (auto f = call_or_fail(impl, moved, in, &run)) return *f;
    auto fail = for_each_pair(c, [&](int w, std::int64_t t, int h, int i, std::int64_t oa,
                                     std::int64_t ob) -> std::optional<PropertyResult> {
      if (pa.axis[static_cast<std::size_t>(i)] == axis) return std::nullopt;
      for (const std::int64_t o : {oa, ob})
        if (std::memcmp(base.out.bytes[w].data() + o * g.esize, run.out.bytes[w].data() + o * g.esize, g.esize) != 0) {
          const int channel = static_cast<int>(o == oa ? oa - g.offset(w, t, h, 0) : ob - g.offset(w, t, h, 0));
          return PropertyResult::fail(
              "moving axis " + std::to_string(axis) + " by " + std::to_string(delta) + " changed pair " +
              std::to_string(i) + " of axis " + std::to_string(pa.axis[static_cast<std::size_t>(i)]) + ": " +
              element_name(c, w, t, h, channel) + " " + std::to_string(stored_value(base.out, w, o, c.dtype)) +
              " then " + std::to_string(stored_value(run.out, w, o, c.dtype)));
        }
      return std::nullopt;
    });
    if (fail) return *fail;
  }
  return {};
}

}  // namespace ropecheck::prop
