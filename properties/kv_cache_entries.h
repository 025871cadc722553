// What the KV-cache properties share: the cache write of a kernel's run on a
// case, entry by entry. A written entry is (token, kv head) with slot >= 0;
// each holds head_dim channels of k and of v.
#ifndef ROPECHECK_PROPERTIES_KV_CACHE_ENTRIES_H_
#define ROPECHECK_PROPERTIES_KV_CACHE_ENTRIES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel/kernel_call.h"
#include "properties/property.h"

namespace ropecheck::prop {

// Calls the kernel on the context's case with its cache write: nullopt with
// r->kv set, or what to report instead (the case outside the kernel's
// capabilities, a failing call, or a case that carries no write).
std::optional<PropertyResult> call_with_kv_write(const ropecheck_impl_t& impl, CaseContext& ctx, KernelRun* r);
// The code of element `i` of a cache of dtype d.
std::uint32_t cache_code(const ByteBuffer& cache, std::int64_t i, CacheDtype d);
// "k_cache[slot 17 (block 1, entry 1), head 0, channel 3] of token 2 at
// position 77" (MLA: "k_pe" or "kv_c" of the slot's entry)
std::string cache_element_name(const Case& c, const KvWriteCase& w, bool k, std::int64_t token, int head,
                               int channel);
// Per byte of the K cache (which = 0) or the V cache (1): whether a written
// entry covers it (MLA_JOINT: the K cache's entries hold kv_c too).
std::vector<bool> written_bytes(const KvWriteCase& w, int which);

}  // namespace ropecheck::prop

#endif  // ROPECHECK_PROPERTIES_KV_CACHE_ENTRIES_H_
