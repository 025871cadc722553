// SPDX-License-Identifier: MIT
// Rope/QuantizesTheRotatedQ: a kernel with a quantized (fp8) output (ABI
// 1.8, QUANTIZED_OUTPUT), called with one (core/cases/quant_out_case.h:
// scales that put the case's largest output near fp8's largest finite
// value, past it, down in its subnormals, or at an ordinary value), writes
// each element of q (and of k where it declares k quantized) as the fp8
// code of the rotated value scaled as its quant_policy declares: every code
// within E9's admissible codes (docs/ERROR_MODEL.md, "E11"; core/judge/
// quant_out_judge.h). A call that also writes the KV cache (FlashInfer's
// rope_quantize_fp8_append_paged_kv_cache) has its cache judged as
// Rope/CachesTheRotatedKAndV judges it. The bug classes: the scale applied
// the wrong way (x / s for x * s: FlashInfer's quant_scale against vLLM's
// k_scale), q quantized before its rotation (the rotation then runs on
// fp8 values), the two fp8 formats confused (e4m3fn's bits written for
// e5m2 or the reverse).
#include <cmath>
#include <optional>
#include <string>

#include "core/judge/kv_cache_judge.h"
#include "core/judge/quant_out_judge.h"
#include "properties/property_helpers.h"

namespace ropecheck::prop {
namespace {

// The largest finite |exact rotated value| of tensor w on the judged tokens.
double largest_output(const ReferenceResult& ref, int w) {
  double m = 0;
  for (const ReferenceElement& e : ref.elements(w))
    if (std::isfinite(e.terms.value)) m = std::fmax(m, std::fabs(e.terms.value));
  return m;
}

// The cache write the call made beside the quantized output, judged as
// Rope/CachesTheRotatedKAndV judges it; "" when right or absent.
std::string cache_write_wrong(const ropecheck_impl_t& impl, const JudgedCase& j, const ErrorModel& em,
                              const KernelRun& run) {
  if (!run.kv) return {};
  const KvRun& kv = *run.kv;
  const KvCacheVerdict v = judge_kv_cache(
      j.c, kv, kv_cache_elements(j, em, cache_write_policy(impl.kv_policy, kv.spec.dtype), kv.spec, kv.v));
  if (!v.first.empty()) return "KV-cache write: " + v.first;
  const std::string rest = kv_cache_rest_changed(kv);
  return rest.empty() ? rest : "KV-cache write: " + rest;
}

}  // namespace

PropertyResult quantizes_the_rotated_q(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (c.in_place) return PropertyResult::skip("in place: a quantized output is written out of place");
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const ropecheck_quant_policy_t& policy = impl.quant_policy;
  const bool not_returned = policy.k_output == ROPECHECK_QUANT_K_NOT_RETURNED;
  const std::optional<KvWriteCase> write = kv_write_case(c, impl.kv_policy, impl.kv_cache_kinds);
  if (not_returned && !write)
    return PropertyResult::skip("k goes only to the KV cache, and the case has no cache write");
  const ReferenceResult& ref = ctx.reference();
  QuantOutCase q = quant_out_case(c, policy, largest_output(ref, 0), largest_output(ref, 1));
  // A kernel that appends k to its cache quantizes q in the cache's fp8 where it can (FlashInfer's one
  // QuantType for q_rope_out and the paged cache, pos_enc.cuh:1327-1333).
  const auto cache_dtype = write ? static_cast<std::uint32_t>(write->dtype) : 0u;
  if (not_returned && (policy.dtypes & (1u << cache_dtype)))
    q.dtype = static_cast<ropecheck_kv_dtype_t>(cache_dtype);
  const std::string form = " (" + q.describe(policy) + ")";
  CallOptions o;
  o.quant = &q;
  const KernelRun run = call_kernel(impl, c, ctx.inputs(), o);
  if (!run.ok()) {
    PropertyResult r = failed_run(impl, run);
    if (r.outcome == Outcome::kFail) r.message += form;
    return r;
  }
  const JudgedCase j{.c = c, .in = ctx.inputs(), .ref = ref};
  const ErrorModel em = case_error_model(impl, c, ref.attention_factor);
  const QuantOutVerdict v =
      judge_quant_out(c, run,
                      quant_out_elements(j, em, quant_write_policy(policy, q.dtype), q,
                                         policy.k_output == ROPECHECK_QUANT_K_QUANTIZED),
                      static_cast<KvDtype>(q.dtype));
  if (!v.first.empty())
    return PropertyResult::fail(v.first + "; worst " + std::to_string(static_cast<long long>(v.worst)) +
                                    " code(s) outside" + form,
                                1 + static_cast<double>(v.worst));
  if (std::string why = cache_write_wrong(impl, j, em, run); !why.empty()) return PropertyResult::fail(why + form);
  return {Outcome::kPass, {}, v.tightness, {}};
}

}  // namespace ropecheck::prop
