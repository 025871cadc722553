// SPDX-License-Identifier: MIT
// Rope/NormalisesEachHeadThenRotates: a kernel fused with the qk-norm (ABI
// 1.5, QK_NORM), called with one (core/cases/qk_norm_case.h), normalises
// every head of q and k by RMSNorm over all its head_dim channels and then
// rotates: each rotated element within the rotation's budget taken at the
// normalised values plus E10's bound carried through it, each pass-through
// element within E10's bound (and its store), against the exact norm and
// rotation (core/judge/qk_norm_reference.h); nothing outside the views
// written; the same bits from a second call. The bug classes: the norm
// fused after the rotation or across it (tenstorrent/tt-mlir PR #9042),
// Gemma's 1 + w taken for w or the reverse, eps dropped, the statistic over
// the rotary channels only, an intermediate rounded where fp32 is declared,
// the pairing layout hard-coded in the fused path (SGLang PR #30342, vLLM
// #49290), q's weight used for k.
#include "core/cases/qk_norm_case.h"
#include "core/judge/qk_norm_judge.h"
#include "core/kernel/call_twice.h"
#include "properties/property_helpers.h"

namespace ropecheck::prop {

// The elements, their budgets and the verdict are core/judge/qk_norm_judge's,
// which the golden vectors' qk-norm cases share.
PropertyResult normalises_each_head_then_rotates(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  const QkNormCase norm = qk_norm_case(c, impl.norm_policy);
  const QkBuffers in = inputs_for_norm(c, ctx.inputs(), norm);
  const KernelRun run = call_kernel_twice(impl, c, in, &norm);
  if (!run.ok()) {
    PropertyResult r = failed_run(impl, run);
    if (r.outcome == Outcome::kFail) r.message += " (" + norm.describe() + ")";
    return r;
  }
  const NormVerdict v = judge_qk_norm(impl, c, in, norm, run);
  if (!v.outside.empty()) return PropertyResult::fail(v.outside + " (" + norm.describe() + ")");
  if (!v.first.empty()) return PropertyResult::fail(v.first + " (" + norm.describe() + ")", v.worst);
  return {Outcome::kPass, {}, v.worst, {}};
}

}  // namespace ropecheck::prop
