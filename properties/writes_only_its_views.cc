// SPDX-License-Identifier: MIT
// Rope/WritesOnlyItsViews: a kernel writes the elements of its q and k views
// and nothing else of their buffers. The case is laid out as views of a
// fused qkv projection with a padded row (vLLM and SGLang hand kernels q and
// k this way): the k part of each row in q's buffer, the q and v parts in
// k's, and the row padding are all outside the views and must keep the
// poison an out-of-place output holds before the call (in place: the input's
// canaries). Clearing or copying a whole row, or a vector store past a
// head, writes there.
#include <algorithm>
#include <vector>

#include "core/cases/views.h"
#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult writes_only_its_views(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  Case v = c;
  v.memory = MemoryLayout::kFusedQkv;
  v.head_pad = 0;
  v.token_pad = std::max(c.token_pad, 5);
  v.in_place = false;  // out of place, every untouched element holds poison
  if (!outside_capabilities(impl, v).empty()) v.in_place = true;
  if (auto s = skip_outside_capabilities(impl, {&v})) return *s;
  std::vector<std::int64_t> same;
  for (std::int64_t i = 0; i < c.tokens; ++i) same.push_back(i);
  KernelRun r;
  if (auto f = call_or_fail(impl, v, remap_inputs(c, ctx.inputs(), v, same), &r)) return *f;
  if (std::string bad = write_outside_views(v, r.out, r.initial); !bad.empty())
    return PropertyResult::fail(bad + (v.in_place ? " (in place)" : " (out of place)"));
  return {};
}

}  // namespace ropecheck::prop
