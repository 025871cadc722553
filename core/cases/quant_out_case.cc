// SPDX-License-Identifier: MIT
// The quantized output's dtype and scales drawn for a case.
#include "core/cases/quant_out_case.h"

#include <cmath>
#include <cstdio>

#include "core/cases/rng.h"

namespace ropecheck {
namespace {

constexpr std::uint64_t kQuantStream = 0x7175'616e'746f'7538ull;  // "quantou8"

// fp8's largest finite value and smallest normal (ropecheck/fp8.h).
double fp8_max(ropecheck_kv_dtype_t d) { return d == ROPECHECK_KV_FP8_E5M2 ? 57344.0 : 448.0; }
double fp8_min_normal(ropecheck_kv_dtype_t d) { return d == ROPECHECK_KV_FP8_E5M2 ? 0x1p-14 : 0x1p-6; }

// The quantization factor g (scaled = value * g) that takes `top` to
// `target`, not a power of two, as the kernel reads it: g itself when it
// multiplies, 1/g when it divides. An ordinary factor where top says nothing.
float scale_for(double top, double target, std::uint32_t direction, double ordinary) {
  double g = std::isfinite(top) && top > 0 ? target / top : ordinary;
  g = std::fmin(std::fmax(g, 0x1p-60), 0x1p60);  // a finite fp32 both ways
  return static_cast<float>(direction == ROPECHECK_KV_SCALE_MULTIPLY ? g : 1.0 / g);
}

}  // namespace

QuantOutCase quant_out_case(const Case& c, const ropecheck_quant_policy_t& policy, double q_max, double k_max) {
  Rng rng(c.seed ^ (static_cast<std::uint64_t>(c.suite) << 56), kQuantStream + static_cast<std::uint64_t>(c.index));
  QuantOutCase q;
  const bool e4m3 = policy.dtypes & (1u << ROPECHECK_KV_FP8_E4M3FN);
  const bool e5m2 = policy.dtypes & (1u << ROPECHECK_KV_FP8_E5M2);
  q.dtype = e5m2 && (!e4m3 || rng.chance(0.5)) ? ROPECHECK_KV_FP8_E5M2 : ROPECHECK_KV_FP8_E4M3FN;
  static constexpr QuantReach kReaches[] = {QuantReach::kNearMax, QuantReach::kSaturating, QuantReach::kSubnormal,
                                            QuantReach::kOrdinary};
  q.reach = rng.pick(kReaches);
  // A factor off every power of two, so the fp32 product rounds.
  const double odd = rng.uniform(1.05, 1.9);
  double target = 0;
  switch (q.reach) {
    case QuantReach::kNearMax: target = fp8_max(q.dtype) * rng.uniform(0.6, 0.98); break;
    case QuantReach::kSaturating: target = fp8_max(q.dtype) * odd * 2; break;  // the top values clamp (or overflow)
    case QuantReach::kSubnormal: target = fp8_min_normal(q.dtype) * odd * 4; break;  // most values subnormal
    case QuantReach::kOrdinary: target = odd * 3; break;
  }
  q.q_scale = scale_for(q_max, target, policy.scale_direction, odd);
  q.k_scale = policy.k_output == ROPECHECK_QUANT_K_QUANTIZED ? scale_for(k_max, target, policy.scale_direction, odd)
                                                             : 1.0f;
  return q;
}

std::string QuantOutCase::describe(const ropecheck_quant_policy_t& policy) const {
  static constexpr const char* kReach[] = {"near the largest finite value", "past the largest finite value",
                                           "down in the subnormals", "an ordinary scale"};
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s, q_scale %.9g k_scale %.9g (x %s scale), the largest output %s",
                dtype == ROPECHECK_KV_FP8_E5M2 ? "fp8_e5m2" : "fp8_e4m3fn", q_scale, k_scale,
                policy.scale_direction == ROPECHECK_KV_SCALE_MULTIPLY ? "*" : "/",
                kReach[static_cast<int>(reach)]);
  return buf;
}

}  // namespace ropecheck
