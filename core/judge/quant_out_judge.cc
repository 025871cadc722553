// SPDX-License-Identifier: MIT
// The verdict on a quantized rotated output: each code within E9's admissible codes.
#include "core/judge/quant_out_judge.h"

#include <algorithm>

#include "core/cases/buffers.h"
#include "core/judge/kv_cache_judge.h"
#include "ropecheck/dtype.h"

namespace ropecheck {

CacheWritePolicy quant_write_policy(const ropecheck_quant_policy_t& p, ropecheck_kv_dtype_t d) {
  // FlashInfer scales the fp32 result of its rotation, never a stored one
  // (pos_enc.cuh: q_rope_vec, a vec_t<float>, times quant_scale_q).
  return {.cache = static_cast<KvDtype>(d),
          .direction = p.scale_direction == ROPECHECK_KV_SCALE_MULTIPLY ? ScaleDirection::kMultiply
                                                                         : ScaleDirection::kDivide,
          .saturate = p.saturate != 0,
          .via_storage = false};
}

std::vector<QuantOutElement> quant_out_elements(const JudgedCase& j, const ErrorModel& em, const CacheWritePolicy& policy,
                                                const QuantOutCase& q, bool with_k) {
  const Case& c = j.c;
  const Geometry g = geometry(c);
  std::vector<QuantOutElement> out;
  auto add = [&](int w, std::int64_t t, int h, int ch, double exact, double pre) {
    QuantOutElement e;
    e.w = w;
    e.token = t;
    e.head = h;
    e.channel = ch;
    // The call's q_out starts at the view's base (base_parts.cc) and counts
    // codes at the case's strides.
    const std::int64_t base = g.base[static_cast<std::size_t>(w)];
    e.byte = static_cast<std::size_t>(base * static_cast<std::int64_t>(g.esize) + (g.offset(w, t, h, ch) - base));
    e.budget = cache_element_budget(exact, pre, c.dtype, w == 0 ? q.q_scale : q.k_scale, policy);
    out.push_back(e);
  };
  const int tensors = with_k && c.kv_heads > 0 ? 2 : 1;
  for (int w = 0; w < tensors; ++w) {
    // The rotated channels: the exact value and the rotation's budget
    // before its last store (as the KV write's k, kv_cache_elements).
    for (const ReferenceElement& e : j.ref.elements(w)) {
      const BudgetTerms bt = em.terms(e.terms);
      add(w, e.token, e.head, e.channel, e.terms.value, bt.angle + bt.trig + bt.prods + bt.fin);
    }
    const int heads = w == 0 ? c.q_heads : c.kv_heads;
    for (const std::int64_t t : j.ref.tokens)
      for (int h = 0; h < heads; ++h)
        for (int ch = c.shape.rotary_dim; ch < c.shape.head_dim; ++ch)
          add(w, t, h, ch,
              load_as_double(j.in.bytes[static_cast<std::size_t>(w)].data(),
                             static_cast<std::size_t>(g.offset(w, t, h, ch)), c.dtype),
              0.0);
  }
  return out;
}

QuantOutVerdict judge_quant_out(const Case& c, const KernelRun& run, const std::vector<QuantOutElement>& elements,
                                KvDtype d) {
  QuantOutVerdict r;
  for (const QuantOutElement& e : elements) {
    const std::uint32_t code = run.out.bytes[static_cast<std::size_t>(e.w)][e.byte];
    const std::int64_t outside = e.budget.steps_outside(code, d);
    if (outside > 0 && r.first.empty())
      r.first = std::string(e.w == 0 ? "q" : "k") + "_out[token " + std::to_string(e.token) + ", head " +
                std::to_string(e.head) + ", channel " + std::to_string(e.channel) + "] at position " +
                c.token_positions(e.token) + ": " + explain_cache_element(code, e.budget, d);
    r.worst = std::max(r.worst, outside);
    if (outside == 0) r.tightness = std::max(r.tightness, code_tightness(code, e.budget, d));
  }
  return r;
}

}  // namespace ropecheck
