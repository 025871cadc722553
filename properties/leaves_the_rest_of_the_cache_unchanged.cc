// SPDX-License-Identifier: MIT
// Rope/LeavesTheRestOfTheCacheUnchanged: a kernel fused with the KV-cache
// write (ABI 1.4) changes no byte of either cache outside the entries of
// the tokens it writes: padding tokens (slot -1) write nothing, neither into
// the last slot (-1 // block_size, vLLM #43810) nor a reserved slot 0
// (SGLang PRs #32477, #35351), and no other slot or block is touched. The
// caches arrive holding random bytes, fresh per call, compared bit for bit
// (core/judge/kv_cache_judge.h, the comparison golden vectors share).
#include <string>

#include "core/judge/kv_cache_judge.h"
#include "properties/kv_cache_entries.h"
#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult leaves_the_rest_of_the_cache_unchanged(const ropecheck_impl_t& impl, CaseContext& ctx) {
  KernelRun r;
  if (auto s = call_with_kv_write(impl, ctx, &r)) return *s;
  if (std::string changed = kv_cache_rest_changed(*r.kv); !changed.empty()) return PropertyResult::fail(changed);
  return {};
}

}  // namespace ropecheck::prop
