// SPDX-License-Identifier: MIT
// Rope/RotatesQTheSameWithoutK: q rotated in a call without k (num_kv_heads
// 0, what an engine does for cross-attention queries or a q-only pass) has
// exactly the bits of q rotated together with k. A kernel whose q path
// depends on k's presence (a grid sized from both, another code path when
// k is null) passes conformance and breaks this. That k is rotated for
// every kv head count, one included (Liger-Kernel #342), is conformance's
// job on every case.
#include <string>
#include <vector>

#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult rotates_q_the_same_without_k(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  Case q_alone = c;
  q_alone.kv_heads = 0;
  if (auto s = skip_outside_capabilities(impl, {&c, &q_alone})) return *s;
  const QkBuffers& in = ctx.inputs();
  const KernelRun* base = nullptr;
  if (auto f = base_run_or_fail(impl, ctx, &base)) return *f;
  const KernelRun& both = *base;
  KernelRun alone;
  std::vector<std::int64_t> same;
  for (std::int64_t i = 0; i < c.tokens; ++i) same.push_back(i);
  if (auto f = call_or_fail(impl, q_alone, remap_inputs(c, in, q_alone, same), &alone)) return *f;
  for (std::int64_t t = 0; t < c.tokens; ++t)
    if (std::string diff = first_token_difference({c, both.out, t}, {q_alone, alone.out, t}, true); !diff.empty())
      return PropertyResult::fail("token " + std::to_string(t) + " (position " +
                                  c.token_positions(t) +
                                  "): q rotated without k has other bits than with k: " + diff);
  return {};
}

}  // namespace ropecheck::prop
