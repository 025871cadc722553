// SPDX-License-Identifier: MIT
// Rope/IsIdentityAtPositionZero: at position 0 the angle is exactly 0, so
// with attention factor 1 every element must come back with its value
// (+0 and -0 are one value: x*1 - y*0 may turn -0 into +0 in IEEE
// arithmetic and in the exact reference alike). With m != 1 the output is
// m*x within the budget. A kernel declaring subnormals flushed (ABI 1.7)
// reads a rotated input below its math dtype's smallest normal number as
// zero (DAZ), so such an element may come back as a zero.
#include "properties/property_helpers.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/policy.h"

namespace ropecheck::prop {

PropertyResult is_identity_at_position_zero(const ropecheck_impl_t& impl, CaseContext& ctx) {
  Case c = ctx.spec();
  for (auto& p : c.positions) p = 0;
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  // The same case, inputs and reference for every kernel (CaseContext::derived).
  CaseContext& zero = ctx.derived("IsIdentityAtPositionZero", [&] { return CaseContext(c, make_inputs(c)); });
  const QkBuffers& in = zero.inputs();
  const ReferenceResult& ref = zero.reference();
  KernelRun run;
  if (auto f = call_or_fail(impl, c, in, &run)) return *f;
  if (!exactly_equal(ref.attention_factor, 1.0)) {
    const CaseOutcome out = judge(impl, {.c = c, .in = in, .ref = ref}, run, &zero.budgets(impl));
    return {out.outcome, out.message, out.worst_units, {}};
  }
  const Geometry g = geometry(c);
  const Policy policy = policy_of(impl);
  const std::uint32_t math =
      policy.base.math_dtype == ROPECHECK_DTYPE_OF_STORAGE ? static_cast<std::uint32_t>(c.dtype) : policy.base.math_dtype;
  const double flushed_below = policy.ext2.subnormals == ROPECHECK_SUBNORMALS_FLUSHED
                                   ? std::ldexp(1.0, dtype_format(static_cast<ropecheck_dtype_t>(math)).emin)
                                   : 0.0;
  const auto flushed = [&](int w, std::int64_t off, int j) {
    return j < c.shape.rotary_dim && std::fabs(stored_value(in, w, off, c.dtype)) < flushed_below &&
           exactly_equal(stored_value(run.out, w, off, c.dtype), 0.0);
  };
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = 0; j < g.head_dim; ++j) {
          const std::int64_t off = g.offset(w, t, h, j);
          if (!same_value(run.out, in, w, off, c.dtype) && !flushed(w, off, j))
            return PropertyResult::fail(
                "not the identity at position 0 with attention factor 1: " + element_name(c, w, t, h, j) + " got " +
                std::to_string(stored_value(run.out, w, off, c.dtype)) + ", input " +
                std::to_string(stored_value(in, w, off, c.dtype)));
        }
  return {};
}

}  // namespace ropecheck::prop
