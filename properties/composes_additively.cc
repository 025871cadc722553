// SPDX-License-Identifier: MIT
// Rope/ComposesAdditively: f(f(x, a), b) = f(x, a + b) with attention
// factor 1. Per pair the distance is bounded by the sum of the three runs'
// pair budgets: a rotation carries an earlier error over unstretched.
#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult composes_additively(const ropecheck_impl_t& impl, CaseContext& ctx) {
  Case ca = ctx.spec();
  // Composition holds for the unscaled rotation. Only YaRN and LongRoPE
  // derive a factor other than 1, so only they (or a case that states one)
  // get an explicit 1: a kernel declaring NO_EXPLICIT_ATTENTION_FACTOR
  // declined every case of this property before (found by the gate's floor
  // of judged cases, on policy_fma_storage).
  // A YaRN kernel that takes no explicit factor but takes DeepSeek's
  // mscale / mscale_all_dim gets them equal instead: its derived factor
  // g(s, m) / g(s, m) is exactly 1 in every arithmetic (Megatron-core's
  // YarnRotaryEmbedding declared so was judged on no case of this property).
  const std::uint64_t flags = impl.caps.flags;
  if (ca.freq.scheme == ROPECHECK_SCHEME_YARN && (flags & ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR) &&
      !(flags & ROPECHECK_CAP_NO_YARN_MSCALE)) {
    ca.freq.attention_factor.reset();
    ca.freq.mscale_all_dim = ca.freq.mscale = ca.freq.mscale > 0 ? ca.freq.mscale : 1.0;
  } else if (ca.freq.attention_factor || ca.freq.scheme == ROPECHECK_SCHEME_YARN ||
             ca.freq.scheme == ROPECHECK_SCHEME_LONGROPE) {
    ca.freq.attention_factor = 1.0;
  }
  ca.direction = ROPECHECK_DIRECTION_FORWARD;
  Case cb = ca, cab = ca;
  for (std::size_t t = 0; t < ca.positions.size(); ++t) {
    const std::int64_t b = draw_shift(ca, 0x434f4d + t, 1 << 12);
    cb.positions[t] = b;
    cab.positions[t] = ca.positions[t] + b;
  }
  if (auto s = skip_outside_capabilities(impl, {&ca, &cb, &cab})) return *s;
  const QkBuffers& x = ctx.inputs();
  KernelRun r1, r2, r3;
  if (auto f = call_or_fail(impl, ca, x, &r1)) return *f;
  if (auto f = call_or_fail(impl, cb, r1.out, &r2)) return *f;
  if (auto f = call_or_fail(impl, cab, x, &r3)) return *f;
  // f(x, a) and f(x, a + b) are the same cases for every kernel
  // (CaseContext::derived); f(f(x, a), b) starts from the kernel's output.
  const ElementBudgets& j1 = element_budgets(impl, ctx.derived("ComposesAdditively a", [&] { return CaseContext(ca, x); }));
  const ElementBudgets j2 = element_budgets(impl, cb, compute_reference(cb, r1.out));
  const ElementBudgets& j3 =
      element_budgets(impl, ctx.derived("ComposesAdditively a + b", [&] { return CaseContext(cab, x); }));
  return compare_pairs(
      ca, r2.out, r3.out, 1.0,
      [&](int w, std::int64_t oa, std::int64_t) { return j1.pair_budget[w][oa] + j2.pair_budget[w][oa] + j3.pair_budget[w][oa]; },
      "f(f(x, a), b) vs f(x, a + b)");
}

}  // namespace ropecheck::prop
