// SPDX-License-Identifier: MIT
// The definitions of fuzz/differential/judge_call.h.
#include "fuzz/differential/judge_call.h"

#include "core/cases/cos_sin_cache_case.h"
#include "core/cases/qk_norm_case.h"
#include "core/judge/judge.h"
#include "core/judge/kv_cache_judge.h"
#include "core/judge/qk_norm_judge.h"
#include "core/kernel/declined_call.h"
#include "core/kernel/kernel_call.h"
#include "ropecheck/abi_caps.h"

namespace ropecheck::fuzz {

PreparedCase& PreparedCases::get(const Case& c, bool raw) {
  const std::string key = keyed_ ? c.describe() + (raw ? " raw" : "") : std::string(raw ? "raw" : "");
  for (auto& [k, p] : cases_)
    if (k == key) return *p;
  auto p = std::make_unique<PreparedCase>();
  p->c = c;
  p->raw = raw;
  p->in = fuzz_inputs(c, input_.raw, raw, &p->wrote_raw);
  cases_.emplace_back(key, std::move(p));
  return *cases_.back().second;
}

const ReferenceResult& PreparedCases::reference(PreparedCase& p) {
  if (!p.ref) p.ref = compute_reference(p.c, p.in);
  return *p.ref;
}

CallVerdict judge_call(const ropecheck_impl_t& impl, const Case& c, const FuzzInput& input, PreparedCases& cases) {
  CallVerdict v;
  const std::uint32_t flags = impl.caps.flags;
  v.form.own_cache = (flags & ROPECHECK_CAP_COS_SIN_CACHE) != 0;
  if (flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE)
    v.form.caller_cache_dtype = static_cast<int>(caller_cache_dtype(c, impl.cos_sin_cache_dtypes));
  if (input.with_norm && (flags & ROPECHECK_CAP_QK_NORM)) {
    // The norm's judge is E10's, defined on the finite inputs the gate
    // draws: the generator's values, each head scaled as the norm case says.
    PreparedCase& p = cases.get(c, false);
    const QkNormCase n = qk_norm_case(c, impl.norm_policy);
    const QkBuffers in = inputs_for_norm(c, p.in, n);
    CallOptions o;
    o.poison = input.poison;
    o.norm = &n;
    const KernelRun run = call_kernel(impl, c, in, o);
    v.form.fused = n.form == ROPECHECK_NORM_WEIGHT_ONE_PLUS_W ? FusedForm::kQkNormOnePlusW : FusedForm::kQkNormW;
    v.detail = n.describe();
    if (!run.ok()) {
      // A case the kernel declined (ABI 1.7, MAY_DECLINE) is a skip, as in the gate.
      v.declined = declined_by_kernel(impl, run);
      if (v.declined.empty()) v.failure = run.failure();
      return v;
    }
    const NormVerdict nv = judge_qk_norm(impl, c, in, n, run);
    v.failure = !nv.outside.empty() ? nv.outside : nv.first;
    return v;
  }
  // The KV-cache write's judge (kv_cache_judge) is defined on the finite
  // inputs the gate draws: it wants a NaN's canonical code, where a kernel
  // may keep the NaN's payload (scalar_fused_kv_vllm widens a bf16 NaN
  // 0xffff to 0xffff0000). A kernel granting the write gets the
  // generator's values; the others also get raw bits.
  PreparedCase& p = cases.get(c, (flags & ROPECHECK_CAP_KV_CACHE_WRITE) == 0);
  v.form.raw_bits = p.wrote_raw;
  const ReferenceResult& ref = cases.reference(p);
  CallOptions o;
  o.poison = input.poison;
  const KernelRun run = call_kernel(impl, c, p.in, o);
  if (run.kv) {
    const KvWriteCase& w = run.kv->spec;
    v.form.fused = w.kind == ROPECHECK_KV_CACHE_MLA_JOINT   ? FusedForm::kKvWriteMlaJoint
                   : w.kind == ROPECHECK_KV_CACHE_MLA_SPLIT ? FusedForm::kKvWriteMlaSplit
                                                            : FusedForm::kKvWrite;
    v.form.kv_cache_dtype = static_cast<int>(w.dtype);
    v.detail = "KV-cache write: " + w.describe();
  }
  // The verdict alone: the fuzzer reads nothing else of the outcome.
  const CaseOutcome out = judge_with_kv_write(impl, {.c = c, .in = p.in, .ref = ref}, run, JudgeDepth::kVerdict);
  if (out.outcome == Outcome::kFail) v.failure = out.message;
  if (out.outcome == Outcome::kSkipped) v.declined = out.message;
  return v;
}

}  // namespace ropecheck::fuzz
