#include "planted_mutants.h"

#include <cmath>
#include <vector>

#include "common/abi_check.h"
#include "common/engine_freqs.h"
#include "common/head_io.h"
#include "common/impl_table.h"

namespace ropecheck::fuzz {
namespace {

constexpr ropecheck_caps_t kCaps = impl::scalar_caps(impl::kBothLayouts, ROPECHECK_CAP_NEGATIVE_POSITIONS);
constexpr ropecheck_policy_t kPolicy =
    impl::policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32);

enum class Trigger { kPositionAbove4096, kHeadDim192 };

ropecheck_status_t apply(Trigger trigger, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  using namespace impl;
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const EngineFreqs<float> f = engine_frequencies<float>(*p->freq, p->rotary_dim);
  const int pairs = p->rotary_dim / 2;
  const float sign = p->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  std::vector<float> c(pairs), s(pairs);
  for_each_head(*p, [&](std::int64_t t) { return position_at(p, t); }, [&](const HeadRef& h) {
    const bool bug = trigger == Trigger::kPositionAbove4096 ? h.position > 4096 : p->head_dim >= 192;
    for (int i = 0; i < pairs; ++i) {
      const float a = static_cast<float>(h.position) * f.inv_freq[i];
      c[i] = std::cos(a) * f.attention_factor;
      s[i] = sign * std::sin(a) * f.attention_factor;
    }
    rotate_head_pairs(*p, h, bug ? 1u - p->layout : p->layout, c.data(), s.data());
  });
  return ROPECHECK_OK;
}

}  // namespace

const ropecheck_impl_t* layout_swap_above_4096() {
  static const ropecheck_impl_t impl{
      sizeof(ropecheck_impl_t), ROPECHECK_ABI_VERSION, "planted_layout_swap_above_4096",
      "planted bug: other layout for positions > 4096", kCaps, kPolicy, nullptr,
      [](void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
        return apply(Trigger::kPositionAbove4096, p, err, n);
      },
      nullptr, nullptr};
  return &impl;
}

const ropecheck_impl_t* layout_swap_head_dim_192() {
  static const ropecheck_impl_t impl{
      sizeof(ropecheck_impl_t), ROPECHECK_ABI_VERSION, "planted_layout_swap_head_dim_192",
      "planted bug: other layout when head_dim >= 192", kCaps, kPolicy, nullptr,
      [](void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
        return apply(Trigger::kHeadDim192, p, err, n);
      },
      nullptr, nullptr};
  return &impl;
}

}  // namespace ropecheck::fuzz
