// SPDX-License-Identifier: MIT
// Rope/DependsOnlyOnPerAxisOffsets: multi-axis RoPE keeps RoPE's relative
// property axis by axis. Pair i of q at positions P and of k at P' turns by
// (P[a] - P'[a]) w_i, a the pair's axis, so shifting every axis a by its own
// t_a leaves every <f(q, P), f(k, P')> unchanged (RoFormer's derivation,
// Su et al. 2021 eq. 16, applied per axis; Heo et al. 2024, "Rotary Position
// Embedding for Vision Transformer", section 3.2, for two axes). A kernel
// mixing the axes (a pair reading another axis's row, a sum of positions)
// breaks it once the axes move apart.
#include <string>
#include <vector>

#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult depends_only_on_per_axis_offsets(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (!c.axes.multi()) return PropertyResult::skip("one position axis: DependsOnlyOnRelativePosition judges it");
  const int axes = c.axis_count();
  std::vector<std::int64_t> shift(static_cast<std::size_t>(axes));
  std::string text = "with the axes shifted by (";
  for (int a = 0; a < axes; ++a) {
    shift[static_cast<std::size_t>(a)] = draw_shift(c, 0x41584953ULL + static_cast<std::uint64_t>(a), 1 << 12);
    text += (a ? "," : "") + std::to_string(shift[static_cast<std::size_t>(a)]);
  }
  Case shifted = c;
  for (std::size_t k = 0; k < shifted.positions.size(); ++k) shifted.positions[k] += shift[k % static_cast<std::size_t>(axes)];
  return dots_unchanged(impl, ctx, shifted, text + ")");
}

}  // namespace ropecheck::prop
