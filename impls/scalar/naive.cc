// SPDX-License-Identifier: MIT
// scalar_naive: the per-pair loop most engines start from. fp32
// frequencies, fp32 product angle fl(fl(p) * w), sinf/cosf, fp32 rotation.
// Multi-axis (ABI 1.3) in the same loop: each pair takes its own axis's
// position and, for per-axis frequencies, its axis's frequency.
#include <cmath>
#include <cstdint>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/pair_axes.h"
#include "ropecheck/layout.h"
#include "impls/scalar/scalar_impls.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps =
    standard_caps(kBothLayouts, ROPECHECK_CAP_NEGATIVE_POSITIONS | kAllAxisForms | ROPECHECK_CAP_AXIS_FREQUENCIES);

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const PairAxisMap axes = pair_axis_map(*p);
  const EngineFreqs<float> f = pair_frequencies<float>(*p, axes);
  const int pairs = p->rotary_dim / 2;
  const float sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  std::vector<float> c(pairs), s(pairs);
  for_each_head_by_pair_positions(
      *p, axes,
      [&](const std::int64_t* pos) {
        for (int i = 0; i < pairs; ++i) {
          const float a = static_cast<float>(pos[i]) * f.inv_freq[i];
          c[i] = std::cos(a) * f.attention_factor;
          s[i] = sign * std::sin(a) * f.attention_factor;
        }
      },
      [&](const HeadRef& h) { rotate_head_pairs(*p, h, p->layout, c.data(), s.data()); });
  return ROPECHECK_OK;
}

}  // namespace

const ropecheck_impl_t* scalar_naive_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "scalar_naive", "per-pair loop; fp32 frequencies, fp32 product angle, sinf/cosf", kCaps,
      libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32), apply);
  return &impl;
}

}  // namespace ropecheck::impl
