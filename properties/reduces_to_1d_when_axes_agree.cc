// SPDX-License-Identifier: MIT
// Rope/ReducesTo1dWhenAxesAgree: M-RoPE with shared frequencies and every
// axis at one position p is the 1D RoPE of p, pair for pair (each pair turns
// by p w_i whatever its axis): Qwen2-VL gives text tokens equal t, h, w ids
// for exactly this reason (arXiv:2409.12191, section 2.1). The kernel runs
// the case with every axis set to the temporal id and is judged against the
// exact 1D result, computed without any axis (reference/rotation.h's 1D
// path), within the budgets of its declared policy. Per-axis frequencies
// restart per axis, so equal positions there are not 1D RoPE: skipped.
#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult reduces_to_1d_when_axes_agree(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (!c.axes.multi()) return PropertyResult::skip("one position axis");
  if (c.axes.frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS)
    return PropertyResult::skip("per-axis frequencies: equal axes are not 1D RoPE");
  Case agree = c;
  Case one = c;
  one.axes = ref::AxisSpec{};
  one.axis_pad = 0;
  one.positions.clear();
  for (std::int64_t t = 0; t < c.tokens; ++t) {
    one.positions.push_back(c.position(t, 0));
    for (int a = 0; a < c.axis_count(); ++a)
      agree.positions[static_cast<std::size_t>(t * c.axis_count() + a)] = c.position(t, 0);
  }
  if (auto s = skip_outside_capabilities(impl, {&agree})) return *s;
  const QkBuffers& in = ctx.inputs();
  KernelRun run;
  if (auto f = call_or_fail(impl, agree, in, &run)) return *f;
  CaseContext& flat = ctx.derived("ReducesTo1dWhenAxesAgree", [&] { return CaseContext(one, in); });
  const CaseOutcome out = judge(impl, {.c = one, .in = in, .ref = flat.reference()}, run, &flat.budgets(impl));
  return {out.outcome, out.outcome == Outcome::kFail ? "with every axis at the temporal id, against 1D RoPE: " + out.message
                                                     : out.message,
          out.worst_units, {}};
}

}  // namespace ropecheck::prop
