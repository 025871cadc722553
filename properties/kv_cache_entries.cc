// SPDX-License-Identifier: MIT
// The KV-cache write of a kernel's run on a case, as the cache properties read it.
#include "properties/kv_cache_entries.h"

#include <string>

#include "properties/property_helpers.h"

namespace ropecheck::prop {

std::optional<PropertyResult> call_with_kv_write(const ropecheck_impl_t& impl, CaseContext& ctx, KernelRun* r) {
  const Case& c = ctx.spec();
  if (auto s = skip_outside_capabilities(impl, {&c})) return s;
  if (auto f = call_or_fail(impl, c, ctx.inputs(), r)) return f;
  if (!r->kv)
    return PropertyResult::skip("no cache write: the case has no k, or more than " +
                                std::to_string(kKvWriteMaxTokens) + " tokens");
  return std::nullopt;
}

}  // namespace ropecheck::prop
