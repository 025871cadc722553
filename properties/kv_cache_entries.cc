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
  const std::string where = "[slot " + std::to_string(slot) + " (block " + std::to_string(slot / w.block_size) +
                            ", entry " + std::to_string(slot % w.block_size) + ")";
  const std::string of = "] of token " + std::to_string(token) + " at position " + c.token_positions(token);
  if (w.mla())
    return std::string(k ? "k_pe" : "kv_c") + " in " +
           (k || w.v_in_k_cache() ? "k_cache" : "v_cache") + where + ", channel " + std::to_string(channel) + of;
  return std::string(k ? "k_cache" : "v_cache") + where + ", head " + std::to_string(head) + ", channel " +
         std::to_string(channel) + of;
}

std::vector<bool> written_bytes(const KvWriteCase& w, int which) {
  const std::size_t es = cache_dtype_size(w.dtype);
  std::vector<bool> out(which == 0 ? w.cache_bytes() : w.v_cache_bytes(), false);
  const auto mark = [&](std::int64_t element, int channels) {
    const auto at = static_cast<std::size_t>(element) * es;
    for (std::size_t b = 0; b < static_cast<std::size_t>(channels) * es; ++b) out[at + b] = true;
  };
  for (std::int64_t slot : w.slots) {
    if (slot < 0) continue;
    for (int h = 0; h < w.kv_heads; ++h) {
      if (which == 0) mark(w.offset(slot, h, 0), w.head_dim);
      if ((which == 0) == w.v_in_k_cache() && h < w.v_heads()) mark(w.v_offset(slot, h, 0), w.v_channels());
    }
  }
  return out;
}

}  // namespace ropecheck::prop
