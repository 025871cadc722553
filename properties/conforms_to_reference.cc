// Rope/ConformsToReference: every rotated element within the budget of the
// implementation's declared policy; pass-through and padding untouched; and
// the same bits from a second call with another poison and other buffers
// (core/kernel/kernel_call.h call_kernel_twice). The
// judge's whole outcome goes back to the gate for its per-family and
// per-position tables.
#include "core/judge/judge.h"
#include "core/kernel/kernel_call.h"
#include "properties/property.h"

namespace ropecheck::prop {

PropertyResult conforms_to_reference(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  CaseOutcome out;
  if (std::string why = outside_capabilities(impl, c); !why.empty()) {
    out.outcome = Outcome::kSkipped;
    out.message = "outside capabilities: " + why;
  } else {
    out = judge(impl, c, ctx.inputs(), ctx.reference(), call_kernel_twice(impl, c, ctx.inputs()));
  }
  PropertyResult r{out.outcome, out.message, out.worst_units, {}};
  r.declined = out.outcome == Outcome::kSkipped;
  r.judged = std::move(out);
  return r;
}

}  // namespace ropecheck::prop
