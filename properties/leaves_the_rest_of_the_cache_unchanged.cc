// Rope/LeavesTheRestOfTheCacheUnchanged: a kernel fused with the KV-cache
// write (ABI 1.4) changes no byte of either cache outside the entries of
// the tokens it writes: padding tokens (slot -1) write nothing, neither into
// the last slot (-1 // block_size, vLLM #43810) nor a reserved slot 0
// (SGLang PRs #32477, #35351), and no other slot or block is touched. The
// caches arrive holding random bytes, fresh per call, compared bit for bit.
#include <string>

#include "properties/kv_cache_entries.h"
#include "properties/property_helpers.h"

namespace ropecheck::prop {

PropertyResult leaves_the_rest_of_the_cache_unchanged(const ropecheck_impl_t& impl, CaseContext& ctx) {
  KernelRun r;
  if (auto s = call_with_kv_write(impl, ctx, &r)) return *s;
  const KvRun& kv = *r.kv;
  const KvWriteCase& w = kv.spec;
  const std::size_t es = cache_dtype_size(w.dtype);
  for (int which = 0; which < 2; ++which) {
    const std::vector<bool> written = written_bytes(w, which);
    const ByteBuffer& now = which == 0 ? kv.k_cache : kv.v_cache;
    const ByteBuffer& before = which == 0 ? kv.k_initial : kv.v_initial;
    // Where an element lies: NHD, HND, or MLA's one-head entries.
    const std::int64_t block_stride = which == 1 && w.kind == ROPECHECK_KV_CACHE_MLA_SPLIT ? w.v_block_stride : w.block_stride;
    const std::int64_t slot_stride = which == 1 && w.kind == ROPECHECK_KV_CACHE_MLA_SPLIT ? w.v_slot_stride : w.slot_stride;
    for (std::size_t i = 0; i < now.size(); ++i) {
      if (written[i] || now[i] == before[i]) continue;
      const std::int64_t element = static_cast<std::int64_t>(i / es);
      const std::int64_t block = element / block_stride, rest = element % block_stride;
      const std::int64_t entry = w.mla() ? rest / slot_stride
                                 : w.hnd ? (rest % w.head_stride) / slot_stride
                                         : rest / slot_stride;
      const int head = w.mla() ? 0 : static_cast<int>(w.hnd ? rest / w.head_stride : (rest % slot_stride) / w.head_stride);
      const std::int64_t slot = block * w.block_size + entry;
      std::int64_t padding = 0;
      for (std::int64_t s : w.slots) padding += s < 0;
      return PropertyResult::fail(std::string(which == 0 ? "k_cache" : "v_cache") + " changed at slot " +
                                  std::to_string(slot) + " (block " + std::to_string(block) + ", entry " +
                                  std::to_string(entry) + "), head " + std::to_string(head) +
                                  ", which no token of the call maps to (" + std::to_string(padding) +
                                  " padding token(s); " + w.describe() + ")");
    }
  }
  return {};
}

}  // namespace ropecheck::prop
