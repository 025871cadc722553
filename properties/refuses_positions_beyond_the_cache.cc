// SPDX-License-Identifier: MIT
// Rope/RefusesPositionsBeyondTheCache: a cache kernel (its own cache, or since
// ABI 1.6 the caller's) handed a cos/sin cache
// one row short of the largest position must answer
// ROPECHECK_POSITION_OUT_OF_RANGE (kernel_abi.h: ids must lie in
// [0, cache_max_position)). A kernel without that check reads past its
// table instead (vLLM's rotary_embedding kernel does no such check); under
// isolation the read hits a guard page.
#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult refuses_positions_beyond_the_cache(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  if (auto s = skip_outside_capabilities(impl, {&c})) return *s;
  if (c.max_abs_position() < 1) return PropertyResult::skip("largest position is 0: no shorter cache exists");
  CallOptions one_row_short;
  one_row_short.cache_rows_short = 1;
  const KernelRun r = call_kernel(impl, c, ctx.inputs(), one_row_short);
  if (r.status == ROPECHECK_POSITION_OUT_OF_RANGE && r.misbehaviour.empty()) return {};
  if (!r.misbehaviour.empty()) return PropertyResult::fail(r.misbehaviour);
  return PropertyResult::fail("position " + std::to_string(c.max_abs_position()) + " with a cache of " +
                              std::to_string(c.max_abs_position()) + " rows: status " + std::to_string(r.status) +
                              " instead of POSITION_OUT_OF_RANGE (" + std::to_string(ROPECHECK_POSITION_OUT_OF_RANGE) +
                              ")" + (r.message.empty() ? "" : ": " + r.message));
}

}  // namespace ropecheck::prop
