// scalar_naive: the per-pair loop most engines start from. fp32
// frequencies, fp32 product angle fl(fl(p) * w), sinf/cosf, fp32 rotation.
#include <cmath>
#include <cstdint>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "ropecheck/layout.h"
#include "impls/scalar/scalar_impls.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps = standard_caps(kBothLayouts, ROPECHECK_CAP_NEGATIVE_POSITIONS);

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const EngineFreqs<float> f = engine_frequencies<float>(*p->freq, p->rotary_dim);
  const int pairs = p->rotary_dim / 2;
  const float sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  std::vector<float> c(pairs), s(pairs);
  for_each_head_by_position(
      *p, [&](std::int64_t t) { return position_at(p, t); },
      [&](std::int64_t pos) {
        for (int i = 0; i < pairs; ++i) {
          const float a = static_cast<float>(pos) * f.inv_freq[i];
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
