// Rope/ConformsToReference: every rotated element within the budget of the
// implementation's declared policy; pass-through and padding untouched.
#include "support.h"

namespace ropecheck::prop {

PropertyResult conforms_to_reference(const ropecheck_impl_t& impl, const Case& c) {
  if (auto s = scope(impl, {&c})) return *s;
  const CaseRunner runner(c);
  const CaseOutcome out = runner.run(impl);
  return {out.outcome, out.message, out.worst_units};
}

}  // namespace ropecheck::prop
