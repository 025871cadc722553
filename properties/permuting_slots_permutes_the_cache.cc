// SPDX-License-Identifier: MIT
// Rope/PermutingSlotsPermutesTheCache: a kernel fused with the KV-cache
// write (ABI 1.4) called again with the same slots handed to the tokens in
// another order (ascending, as a prefill's are; descending when the drawn
// mapping already ascends; padding tokens keep their place) writes each
// token's entry, bit for bit the one it wrote before, at the token's new
// slot, leaves every other byte of both caches as it was, and returns the
// same q and k: the slot mapping moves entries and nothing else. What it
// catches that the other cache properties, on their one random mapping, do
// not: a kernel whose path depends on the mapping's shape, such as a
// prefill path that assumes a prefill's slots contiguous (one run from the
// first slot) once they ascend; paged caches hand a sequence blocks
// anywhere in the pool, so a prefill's slots ascend within a block and jump
// between blocks.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "properties/kv_cache_entries.h"
#include "properties/property_helpers.h"

namespace ropecheck::prop {
namespace {

// The bytes of token t's entry (k, and v or kv_c) in a run's caches.
std::vector<unsigned char> entry_bytes(const KvRun& kv, std::int64_t slot) {
  const KvWriteCase& w = kv.spec;
  const std::size_t es = kv_dtype_size(w.dtype);
  std::vector<unsigned char> out;
  const auto take = [&](const ByteBuffer& cache, std::int64_t element, int channels) {
    const unsigned char* at = cache.data() + static_cast<std::size_t>(element) * es;
    out.insert(out.end(), at, at + static_cast<std::size_t>(channels) * es);
  };
  for (int h = 0; h < w.kv_heads; ++h) take(kv.k_cache, w.offset(slot, h, 0), w.head_dim);
  for (int h = 0; h < w.v_heads(); ++h)
    take(w.v_in_k_cache() ? kv.k_cache : kv.v_cache, w.v_offset(slot, h, 0), w.v_channels());
  return out;
}

}  // namespace

PropertyResult permuting_slots_permutes_the_cache(const ropecheck_impl_t& impl, CaseContext& ctx) {
  const Case& c = ctx.spec();
  KernelRun first;
  if (auto s = call_with_kv_write(impl, ctx, &first)) return *s;
  const std::vector<std::int64_t>& drawn = first.kv->spec.slots;
  std::vector<std::int64_t> real;
  for (std::int64_t s : drawn)
    if (s >= 0) real.push_back(s);
  if (real.size() < 2) return PropertyResult::skip("fewer than two tokens with a slot: no permutation moves one");
  std::vector<std::int64_t> order = real;
  std::sort(order.begin(), order.end());
  const bool ascending = order == real;
  if (ascending) std::reverse(order.begin(), order.end());
  std::vector<std::int64_t> permuted = drawn;
  for (std::size_t t = 0, next = 0; t < permuted.size(); ++t)
    if (permuted[t] >= 0) permuted[t] = order[next++];
  const std::string how = ascending ? "descending" : "ascending";
  CallOptions o;
  o.slot_mapping = &permuted;
  const KernelRun second = call_kernel(impl, c, ctx.inputs(), o);
  if (!second.ok()) return failed_run(impl, second, "with the slots handed out " + how + ": ");
  const KvRun& a = *first.kv;
  const KvRun& b = *second.kv;
  // Each token's entry moved with its slot.
  for (std::int64_t t = 0; t < c.tokens; ++t) {
    const std::int64_t from = drawn[static_cast<std::size_t>(t)], to = permuted[static_cast<std::size_t>(t)];
    if (from < 0) continue;
    if (entry_bytes(a, from) != entry_bytes(b, to))
      return PropertyResult::fail("token " + std::to_string(t) + ": its entry at slot " + std::to_string(from) +
                                  " under the drawn mapping and at slot " + std::to_string(to) +
                                  " with the same slots handed out " + how + " differ (" + b.spec.describe() + ")");
  }
  // Nothing else in either cache changed (against what the second call's
  // caches held before it).
  const std::size_t es = kv_dtype_size(b.spec.dtype);
  for (int which = 0; which < 2; ++which) {
    const std::vector<bool> written = written_bytes(b.spec, which);
    const ByteBuffer& now = which == 0 ? b.k_cache : b.v_cache;
    const ByteBuffer& before = which == 0 ? b.k_initial : b.v_initial;
    for (std::size_t i = 0; i < now.size(); ++i)
      if (!written[i] && now[i] != before[i])
        return PropertyResult::fail(std::string(which == 0 ? "k_cache" : "v_cache") + " element " +
                                    std::to_string(i / es) + ", in no token's slot, changed with the slots handed out " +
                                    how + " (" + b.spec.describe() + ")");
  }
  // And q and k are what they were.
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h) {
        const auto at = static_cast<std::size_t>(g.offset(w, t, h, 0)) * g.esize;
        if (std::memcmp(first.out.bytes[w].data() + at, second.out.bytes[w].data() + at,
                        static_cast<std::size_t>(g.head_dim) * g.esize) != 0)
          return PropertyResult::fail(element_name(c, w, t, h, 0) + " (its head) differs with the slots handed out " +
                                      how + ": the slot mapping changed the rotation");
      }
  return {};
}

}  // namespace ropecheck::prop
