// SPDX-License-Identifier: MIT
// scalar_rotate_half: HF transformers' tensor formula
//   out = x * cos_full + rotate_half(x) * sin_full
// with cos_full = cat(cos, cos) (half split) or repeat_interleave(cos, 2)
// and rotate_every_two (interleaved); cos/sin carry the attention factor as
// HF's `cos * attention_scaling`. fp32 frequencies and fp32 product angles.
#include <cmath>
#include <cstdint>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/scalar/scalar_impls.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps = standard_caps(kBothLayouts, ROPECHECK_CAP_NEGATIVE_POSITIONS);

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const EngineFreqs<float> f = engine_frequencies<float>(*p->freq, p->rotary_dim);
  const int d = p->rotary_dim;
  const int half = d / 2;
  const bool interleaved = p->layout == ROPECHECK_LAYOUT_INTERLEAVED;
  const float sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  std::vector<float> cos_full(d), sin_full(d), x(d), rot(d);
  for_each_head_by_position(
      *p, [&](std::int64_t t) { return position_at(p, t); },
      [&](std::int64_t pos) {
        for (int j = 0; j < d; ++j) {
          const int i = interleaved ? j / 2 : j % half;
          const float a = static_cast<float>(pos) * f.inv_freq[i];
          cos_full[j] = std::cos(a) * f.attention_factor;
          sin_full[j] = sign * std::sin(a) * f.attention_factor;
        }
      },
      [&](const HeadRef& h) {
        for (int j = 0; j < d; ++j) x[j] = load_f32(h.in, h.offset + j, p->dtype);
        for (int j = 0; j < d; ++j) {
          if (interleaved)
            rot[j] = (j % 2 == 0) ? -x[j + 1] : x[j - 1];
          else
            rot[j] = (j < half) ? -x[j + half] : x[j - half];
        }
        for (int j = 0; j < d; ++j)
          store_f32(h.out, h.offset + j, p->dtype, x[j] * cos_full[j] + rot[j] * sin_full[j]);
      });
  return ROPECHECK_OK;
}

}  // namespace

const ropecheck_impl_t* scalar_rotate_half_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "scalar_rotate_half", "HF x*cos + rotate_half(x)*sin; fp32 frequencies, fp32 product angle", kCaps,
      libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32), apply);
  return &impl;
}

}  // namespace ropecheck::impl
