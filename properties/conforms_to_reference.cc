// SPDX-License-Identifier: MIT
// Rope/ConformsToReference: every rotated element within the budget of the
// implementation's declared policy; pass-through and padding untouched; and
// the same bits from a second call with another poison and other buffers
// (core/judge/conformance.h, the judgement golden verify gives too). The
// judge's whole outcome goes back to the gate for its per-family and
// per-position tables.
#include "core/judge/conformance.h"
#include "properties/property.h"

namespace ropecheck::prop {

PropertyResult conforms_to_reference(const ropecheck_impl_t& impl, CaseContext& ctx) {
  CaseOutcome out = judge_conformance(
      impl, {.c = ctx.spec(), .in = ctx.inputs(), .ref = ctx.reference()}, [&] { return &ctx.budgets(impl); },
      [&]() -> const KernelRun& { return ctx.base_run(impl); });
  PropertyResult r{out.outcome, out.message, out.worst_units, {}};
  r.declined = out.outcome == Outcome::kSkipped;
  r.judged = std::move(out);
  return r;
}

}  // namespace ropecheck::prop
