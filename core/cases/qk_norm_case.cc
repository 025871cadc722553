// SPDX-License-Identifier: MIT
// The qk-norm a case is called with: weights, eps, per-head input scales.
#include "core/cases/qk_norm_case.h"

#include <cmath>
#include <sstream>

#include "core/cases/rng.h"
#include "reference/real.h"
#include "reference/rounding.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

// The stream of the norm's draws: the plain case's draws are untouched.
constexpr std::uint64_t kNormStream = 0x716b'6e6f'726d'3135ull;  // "qknorm15"

double round_s(double v, ropecheck_dtype_t t) { return ref::round_to_dtype(ref::Real(v), t); }

}  // namespace

QkNormCase qk_norm_case(const Case& c, const ropecheck_norm_policy_t& policy) {
  Rng rng(c.seed ^ (static_cast<std::uint64_t>(c.suite) << 56), kNormStream + static_cast<std::uint64_t>(c.index));
  QkNormCase n;
  const bool w_ok = policy.weight_forms & (1u << ROPECHECK_NORM_WEIGHT_W);
  const bool one_plus_ok = policy.weight_forms & (1u << ROPECHECK_NORM_WEIGHT_ONE_PLUS_W);
  n.form = one_plus_ok && (!w_ok || rng.chance(0.5)) ? ROPECHECK_NORM_WEIGHT_ONE_PLUS_W : ROPECHECK_NORM_WEIGHT_W;
  // The eps of Qwen3 and OLMo 2 (1e-6) and of Gemma 3 / vLLM's tests (1e-5).
  static constexpr float kEps[] = {1e-6f, 1e-5f};
  n.eps = rng.pick(kEps);
  const int d = c.shape.head_dim;
  for (int w = 0; w < 2; ++w) {
    const int heads = w == 0 ? c.q_heads : c.kv_heads;
    if (heads == 0) continue;
    // w: trained scales, mostly positive around 1 (a tenth negative);
    // 1 + w: Gemma's offsets around 0, so 1 + w ranges over [0.25, 2.5].
    for (int j = 0; j < d; ++j) {
      double v = n.form == ROPECHECK_NORM_WEIGHT_W ? rng.uniform(0.25, 2.5) * (rng.chance(0.1) ? -1 : 1)
                                                    : rng.uniform(-0.75, 1.5);
      if (rng.chance(0.05)) v = n.form == ROPECHECK_NORM_WEIGHT_W ? 1.0 : 0.0;
      n.weight[static_cast<std::size_t>(w)].push_back(round_s(v, c.dtype));
    }
    // Scales 1, 2^-6, 2^-10: a head of values near 2^-10 has a mean square
    // near 1e-6, eps's own order.
    static constexpr int kScale[] = {0, 0, 6, 10};
    for (int h = 0; h < heads; ++h) n.head_scale_log2[static_cast<std::size_t>(w)].push_back(rng.pick(kScale));
  }
  return n;
}

QkBuffers inputs_for_norm(const Case& c, const QkBuffers& in, const QkNormCase& n) {
  QkBuffers out = in;
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[static_cast<std::size_t>(w)]; ++h) {
        const int k = n.head_scale_log2[static_cast<std::size_t>(w)][static_cast<std::size_t>(h)];
        if (k == 0) continue;
        for (int j = 0; j < g.head_dim; ++j) {
          const std::int64_t off = g.offset(w, t, h, j);
          const double x = load_as_double(in.bytes[static_cast<std::size_t>(w)].data(), static_cast<std::size_t>(off), c.dtype);
          store_value(out.bytes[static_cast<std::size_t>(w)].data(), off, c.dtype, round_s(std::ldexp(x, -k), c.dtype));
        }
      }
  return out;
}

ByteBuffer weight_bytes(const Case& c, const QkNormCase& n, int w) {
  const std::vector<double>& v = n.weight[static_cast<std::size_t>(w)];
  ByteBuffer b(v.size() * dtype_size(c.dtype));
  for (std::size_t j = 0; j < v.size(); ++j) store_value(b.data(), static_cast<std::int64_t>(j), c.dtype, v[j]);
  return b;
}

NormPolicy norm_policy_of(const ropecheck_norm_policy_t& p, ropecheck_norm_weight_form_t form) {
  NormPolicy r;
  r.form = form == ROPECHECK_NORM_WEIGHT_ONE_PLUS_W ? ref::NormWeightForm::kOnePlusW : ref::NormWeightForm::kW;
  r.intermediate = p.intermediate == ROPECHECK_NORM_ROUND_BEFORE_WEIGHT  ? NormIntermediate::kRoundBeforeWeight
                   : p.intermediate == ROPECHECK_NORM_ROUND_AFTER_WEIGHT ? NormIntermediate::kRoundAfterWeight
                                                                        : NormIntermediate::kKeepF32;
  r.rsqrt_max_ulp = p.rsqrt_max_ulp > 0 ? p.rsqrt_max_ulp : 1.0;
  return r;
}

std::string QkNormCase::describe() const {
  std::ostringstream os;
  os << "qk-norm " << (form == ROPECHECK_NORM_WEIGHT_ONE_PLUS_W ? "1+w" : "w") << ", eps " << eps
     << ", head scales 2^-{0,6,10}";
  return os.str();
}

}  // namespace ropecheck
