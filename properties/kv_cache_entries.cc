#include "properties/kv_cache_entries.h"

#include <cstring>

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

std::uint32_t cache_code(const ByteBuffer& cache, std::int64_t i, CacheDtype d) {
  const std::size_t es = cache_dtype_size(d);
  std::uint32_t code = 0;
  std::memcpy(&code, cache.data() + static_cast<std::size_t>(i) * es, es);  // little-endian
  return code;
}

std::string cache_element_name(const Case& c, const KvWriteCase& w, bool k, std::int64_t token, int head,
                               int channel) {
  const std::int64_t slot = w.slots[static_cast<std::size_t>(token)];
  return std::string(k ? "k_cache" : "v_cache") + "[slot " + std::to_string(slot) + " (block " +
         std::to_string(slot / w.block_size) + ", entry " + std::to_string(slot % w.block_size) + "), head " +
         std::to_string(head) + ", channel " + std::to_string(channel) + "] of token " + std::to_string(token) +
         " at position " + c.token_positions(token);
}

std::vector<bool> written_bytes(const KvWriteCase& w) {
  const std::size_t es = cache_dtype_size(w.dtype);
  std::vector<bool> out(w.cache_bytes(), false);
  for (std::int64_t slot : w.slots) {
    if (slot < 0) continue;
    for (int h = 0; h < w.kv_heads; ++h) {
      const auto at = static_cast<std::size_t>(w.offset(slot, h, 0)) * es;
      for (std::size_t b = 0; b < static_cast<std::size_t>(w.head_dim) * es; ++b) out[at + b] = true;
    }
  }
  return out;
}

}  // namespace ropecheck::prop
