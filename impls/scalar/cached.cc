// scalar_cached: vLLM/FlashInfer style. build_cache fills a
// [max_position, rotary_dim] fp32 table (m*cos then m*sin per row, computed
// in double); apply only looks rows up, and reports a position outside the
// table instead of reading past it. Multi-axis (ABI 1.3, shared
// frequencies): pair i reads its entry from the row of its axis's position.
#include <cmath>
#include <cstdint>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/cache_builder.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/pair_axes.h"
#include "impls/scalar/scalar_impls.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps = standard_caps(kBothLayouts, ROPECHECK_CAP_COS_SIN_CACHE | kAllAxisForms);

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const int pairs = p->rotary_dim / 2;
  const float sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  const float* cache = static_cast<const float*>(p->cos_sin_cache);
  std::vector<float> c(pairs), s(pairs);
  for_each_head_by_pair_positions(
      *p, pair_axis_map(*p),
      [&](const std::int64_t* pos) {
        for (int i = 0; i < pairs; ++i) {
          const float* row = cache + pos[i] * p->rotary_dim;
          c[i] = row[i];
          s[i] = sign * row[pairs + i];
        }
      },
      [&](const HeadRef& h) { rotate_head_pairs(*p, h, p->layout, c.data(), s.data()); });
  return ROPECHECK_OK;
}

}  // namespace

const ropecheck_impl_t* scalar_cached_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "scalar_cached", "[max_pos, rotary_dim] fp32 cos|sin cache built in double; bounds-checked lookup", kCaps,
      libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32), apply,
      build_cos_sin_cache_entry);
  return &impl;
}

}  // namespace ropecheck::impl
