// Rope/CachesTheRotatedKAndV: a kernel fused with the KV-cache write (ABI
// 1.4) writes, for every token with a slot, the rotated k (never the
// unrotated one; its pass-through channels copied too) and the v into that
// slot's entry, each scaled and rounded as its kv_policy declares: every
// code within E9's admissible codes (docs/ERROR_MODEL.md), read from the
// cache's bytes. The bug classes: the scale direction or the k and v scales
// confused (vLLM PR #34863, SGLang PR #26852), partial rotary's pass-through
// channels not cached (SGLang PR #22868), the cache written from k before
// its rotation, a padding token's k landing in a real slot (vLLM #43810).
// An MLA write (ABI 1.5) is judged the same way: k_pe's rotated channels
// and the latent kv_c, each at its place in the entry, with the entry's one
// scale; kv_c rotated with k_pe, or k_pe's half left unrotated (vLLM PR
// #41185), lands outside.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/error_model/cache_write_budget.h"
#include "properties/kv_cache_entries.h"
#include "properties/property_helpers.h"
#include "ropecheck/policy.h"

namespace ropecheck::prop {

PropertyResult caches_the_rotated_k_and_v(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  KernelRun r;
  if (auto s = call_with_kv_write(impl, ctx, &r)) return *s;
  const KvRun& kv = *r.kv;
  const KvWriteCase& w = kv.spec;
  const CacheWritePolicy policy = cache_write_policy(impl.kv_policy, w.dtype);
  const ReferenceResult& ref = ctx.reference();
  const ErrorModel em = case_error_model(impl, c, ref.attention_factor);
  const Geometry g = geometry(c);
  const QkBuffers& in = ctx.inputs();
  double worst = 0;
  // E9's tightness: |written value - exact scaled value| over the radius
  // before the cache rounding plus half a step of the cache dtype there,
  // on the elements inside the cache's finite range (the saturated ones
  // have no such ratio). At most 1 for a correct kernel.
  double tightness = 0;
  std::string first;
  auto judge = [&](bool k, std::int64_t t, int h, int j, double exact, double pre) {
    const float scale = k ? w.k_scale_of(h) : w.v_scale_of(h);
    const std::int64_t slot = w.slots[static_cast<std::size_t>(t)];
    const std::uint32_t code = k ? cache_code(kv.k_cache, w.offset(slot, h, j), w.dtype)
                                 : cache_code(w.v_in_k_cache() ? kv.k_cache : kv.v_cache, w.v_offset(slot, h, j), w.dtype);
    const CacheElementBudget b = cache_element_budget(exact, pre, c.dtype, scale, policy);
    const std::int64_t out = b.steps_outside(code, w.dtype);
    if (out > 0 && first.empty())
      first = cache_element_name(c, w, k, t, h, j) + ": " + explain_cache_element(code, b, w.dtype) + " (" +
              w.describe() + ")";
    worst = std::max(worst, static_cast<double>(out));
    if (out == 0 && std::isfinite(b.center) && std::isfinite(b.radius)) {
      const double reach = std::fabs(b.center) + b.radius;
      const std::uint32_t near = round_to_cache_code(reach, w.dtype, true);
      const double at = cache_code_value(near, w.dtype);
      const double top = cache_code_value(round_to_cache_code(HUGE_VAL, w.dtype, true), w.dtype);
      if (reach <= top) {
        // Half a step of the cache dtype at the reach: half the larger of the
        // gaps on either side of the code it rounds to (the gap holding it is
        // one of them, and no value below it rounds by more).
        double gap = 0;
        const double next = cache_code_value(near + 1, w.dtype);
        if (std::isfinite(next) && next > at) gap = next - at;
        if (near > 0) {
          const double prev = cache_code_value(near - 1, w.dtype);
          if (std::isfinite(prev) && prev < at) gap = std::max(gap, at - prev);
        }
        const double allowed = b.radius + gap / 2;
        if (allowed > 0)
          tightness = std::max(tightness, std::fabs(cache_code_value(code, w.dtype) - b.center) / allowed);
      }
    }
  };
  // k's rotated channels, on the judged tokens, against the exact rotated k
  // and the rotation's budget before its store.
  for (const ReferenceElement& e : ref.elements(1)) {
    if (w.slots[static_cast<std::size_t>(e.token)] < 0) continue;
    const BudgetTerms bt = em.terms(e.terms);
    judge(true, e.token, e.head, e.channel, e.terms.value, bt.angle + bt.trig + bt.prods + bt.fin);
  }
  // k's pass-through channels (exact: the input), and v (MLA: kv_c, never
  // rotated), on every token.
  const ropecheck_dtype_t dt = c.dtype;
  for (std::int64_t t = 0; t < c.tokens; ++t) {
    if (w.slots[static_cast<std::size_t>(t)] < 0) continue;
    for (int h = 0; h < c.kv_heads; ++h)
      for (int j = c.shape.rotary_dim; j < c.shape.head_dim; ++j)
        judge(true, t, h, j, stored_value(in, 1, g.offset(1, t, h, j), dt), 0.0);
    for (int h = 0; h < w.v_heads(); ++h)
      for (int j = 0; j < w.v_channels(); ++j)
        judge(false, t, h, j,
              load_as_double(kv.v.data(), static_cast<std::size_t>((t * w.v_heads() + h) * w.v_channels() + j), dt),
              0.0);
  }
  if (!first.empty())
    return PropertyResult::fail(first + "; worst " + std::to_string(static_cast<long long>(worst)) +
                                    " code(s) outside",
                                1 + worst);
  return {Outcome::kPass, {}, tightness, {}};
}

}  // namespace ropecheck::prop
