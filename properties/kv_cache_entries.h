// SPDX-License-Identifier: MIT
// What the KV-cache properties share: the cache write of a kernel's run on a
// case. A written entry is (token, kv head) with slot >= 0; each holds
// head_dim channels of k and of v. The entries' judgement, their bytes and
// their names are core/judge/kv_cache_judge.h's (golden vectors share them).
#ifndef ROPECHECK_PROPERTIES_KV_CACHE_ENTRIES_H_
#define ROPECHECK_PROPERTIES_KV_CACHE_ENTRIES_H_

#include <optional>

#include "core/judge/kv_cache_judge.h"
#include "core/kernel/kernel_call.h"
#include "properties/property.h"

namespace ropecheck::prop {

// Calls the kernel on the context's case with its cache write: nullopt with
// r->kv set, or what to report instead (the case outside the kernel's
// capabilities, a failing call, or a case that carries no write).
std::optional<PropertyResult> call_with_kv_write(const ropecheck_impl_t& impl, CaseContext& ctx, KernelRun* r);

}  // namespace ropecheck::prop

#endif  // ROPECHECK_PROPERTIES_KV_CACHE_ENTRIES_H_
