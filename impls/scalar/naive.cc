// scalar_naive: the per-pair loop most engines start from. fp32
// frequencies, fp32 product angle fl(fl(p) * w), sinf/cosf, fp32 rotation.
#include <cmath>
#include <cstdint>
#include <vector>

#include "../common/abi_check.h"
#include "../common/engine_freqs.h"
#include "../common/head_io.h"
#include "../common/impl_table.h"
#include "ropecheck/layout.h"
#include "scalar_impls.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps = scalar_caps(kBothLayouts, ROPECHECK_CAP_NEGATIVE_POSITIONS);

ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const EngineFreqs<float> f = engine_frequencies<float>(*p->freq, p->rotary_dim);
  const int pairs = p->rotary_dim / 2;
  const float sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  std::vector<float> c(pairs), s(pairs);
  bool have = false;
  std::int64_t have_pos = 0;
  for_each_head(*p, [&](std::int64_t t) { return position_at(p, t); }, [&](const HeadRef& h) {
    if (!have || h.position != have_pos) {
      for (int i = 0; i < pairs; ++i) {
        const float a = static_cast<float>(h.position) * f.inv_freq[i];
        c[i] = std::cos(a) * f.attention_factor;
        s[i] = sign * std::sin(a) * f.attention_factor;
      }
      have = true;
      have_pos = h.position;
    }
    rotate_head_pairs(*p, h, p->layout, c.data(), s.data());
  });
  return ROPECHECK_OK;
}

}  // namespace

const ropecheck_impl_t* scalar_naive_impl() {
  static const ropecheck_impl_t impl{
      sizeof(ropecheck_impl_t), ROPECHECK_ABI_VERSION, "scalar_naive",
      "per-pair loop; fp32 frequencies, fp32 product angle, sinf/cosf", kCaps,
      policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32), nullptr,
      apply, nullptr, nullptr};
  return &impl;
}

}  // namespace ropecheck::impl
