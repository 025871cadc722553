// Rope/RefusesPositionsBeyondTheCache: a cache kernel handed a cos/sin cache
// one row short of the largest position must answer
// ROPECHECK_POSITION_OUT_OF_RANGE (kernel_abi.h: ids must lie in
// [0, cache_max_position)). vLLM's kernel reads past its cache instead
// (rope-facts.md); under isolation such a read hits a guard page.
#include "support.h"

namespace ropecheck::prop {

PropertyResult refuses_positions_beyond_cache(const ropecheck_impl_t& impl, const Case& c) {
  if (auto s = scope(impl, {&c})) return *s;
  if (c.max_abs_position() < 1) return PropertyResult::skip("largest position is 0: no shorter cache exists");
  const Tensors in = make_inputs(c);
  const RunResult r = execute(impl, c, in, /*cache_rows_short=*/1);
  if (r.status == ROPECHECK_POSITION_OUT_OF_RANGE) return {};
  return PropertyResult::fail("position " + std::to_string(c.max_abs_position()) + " with a cache of " +
                              std::to_string(c.max_abs_position()) + " rows: status " + std::to_string(r.status) +
                              " instead of POSITION_OUT_OF_RANGE (" + std::to_string(ROPECHECK_POSITION_OUT_OF_RANGE) +
                              ")" + (r.message.empty() ? "" : ": " + r.message));
}

}  // namespace ropecheck::prop
