// SPDX-License-Identifier: MIT
// Rope/CachesTheRotatedKAndV: a kernel fused with the KV-cache write (ABI
// 1.4) writes, for every token with a slot, the rotated k (never the
// unrotated one; its pass-through channels copied too) and the v into that
// slot's entry, each scaled and rounded as its kv_policy declares: every
// code within E9's admissible codes (docs/ERROR_MODEL.md), read from the
// cache's bytes (core/judge/kv_cache_judge.h, the judgement golden vectors
// share). The bug classes: the scale direction or the k and v scales
// confused (vLLM PR #34863, SGLang PR #26852), partial rotary's pass-through
// channels not cached (SGLang PR #22868), the cache written from k before
// its rotation, a padding token's k landing in a real slot (vLLM #43810).
// An MLA write (ABI 1.5) is judged the same way: k_pe's rotated channels
// and the latent kv_c, each at its place in the entry, with the entry's one
// scale; kv_c rotated with k_pe, or k_pe's half left unrotated (vLLM PR
// #41185), lands outside.
#include <string>

#include "core/judge/kv_cache_judge.h"
#include "properties/kv_cache_entries.h"
#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult caches_the_rotated_k_and_v(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  KernelRun r;
  if (auto s = call_with_kv_write(impl, ctx, &r)) return *s;
  const KvRun& kv = *r.kv;
  const ReferenceResult& ref = ctx.reference();
  const std::vector<KvCacheElement> elements =
      kv_cache_elements({.c = c, .in = ctx.inputs(), .ref = ref}, case_error_model(impl, c, ref.attention_factor),
                        cache_write_policy(impl.kv_policy, kv.spec.dtype), kv.spec, kv.v);
  const KvCacheVerdict v = judge_kv_cache(c, kv, elements);
  if (!v.first.empty())
    return PropertyResult::fail(v.first + "; worst " + std::to_string(static_cast<long long>(v.worst)) +
                                    " code(s) outside",
                                1 + static_cast<double>(v.worst));
  return {Outcome::kPass, {}, v.tightness, {}};
}

}  // namespace ropecheck::prop
