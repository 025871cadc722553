// SPDX-License-Identifier: MIT
// The definitions of impls/kernel_support/cache_rotation.h.
#include "impls/kernel_support/cache_rotation.h"

#include <cstdint>
#include <vector>

#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/pair_axes.h"

namespace ropecheck::impl {

void rotate_from_cache(const ropecheck_apply_params_t& p) {
  const int pairs = p.rotary_dim / 2;
  const float sign = p.direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  std::vector<float> c(static_cast<std::size_t>(pairs)), s(static_cast<std::size_t>(pairs));
  for_each_head_by_pair_positions(
      p, pair_axis_map(p),
      [&](const std::int64_t* pos) {
        for (int i = 0; i < pairs; ++i) {
          const std::int64_t row = pos[i] * p.rotary_dim;
          c[static_cast<std::size_t>(i)] = load_f32(p.cos_sin_cache, row + i, p.cache_dtype);
          s[static_cast<std::size_t>(i)] = sign * load_f32(p.cos_sin_cache, row + pairs + i, p.cache_dtype);
        }
      },
      [&](const HeadRef& h) { rotate_head_pairs(p, h, p.layout, c.data(), s.data()); });
}

}  // namespace ropecheck::impl
