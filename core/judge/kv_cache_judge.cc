// SPDX-License-Identifier: MIT
// The verdict on a KV-cache write: each written element's codes, and the rest of both caches unchanged.
#include "core/judge/kv_cache_judge.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ropecheck/dtype.h"

namespace ropecheck {

std::vector<KvCacheElement> kv_cache_elements(const JudgedCase& j, const ErrorModel& em, const CacheWritePolicy& policy,
                                              const KvWriteCase& w, const ByteBuffer& v) {
  const Case& c = j.c;
  const QkBuffers& in = j.in;
  const ReferenceResult& ref = j.ref;
  std::vector<KvCacheElement> out;
  // Sized once: grown by push_back, each doubling was a fresh allocation
  // whose pages faulted in and a copy of what it held (a sixth of the quick
  // gate's page faults came from here).
  out.reserve(2 * ref.pairs[1].size() +
              ref.tokens.size() * static_cast<std::size_t>(c.kv_heads * (c.shape.head_dim - c.shape.rotary_dim) +
                                                           w.v_heads() * w.v_channels()));
  const Geometry g = geometry(c);
  const ropecheck_dtype_t dt = c.dtype;
  auto add = [&](bool k, std::int64_t t, int h, int j, double exact, double pre) {
    const std::int64_t slot = w.slots[static_cast<std::size_t>(t)];
    KvCacheElement e;
    e.k = k;
    e.in_k_cache = k || w.v_in_k_cache();
    e.token = t;
    e.head = h;
    e.channel = j;
    e.offset = k ? w.offset(slot, h, j) : w.v_offset(slot, h, j);
    e.budget = cache_element_budget(exact, pre, dt, k ? w.k_scale_of(h) : w.v_scale_of(h), policy);
    out.push_back(e);
  };
  // k's rotated channels, on the judged tokens, against the exact rotated k
  // and the rotation's budget before its store.
  for (const ReferenceElement& e : ref.elements(1)) {
    if (w.slots[static_cast<std::size_t>(e.token)] < 0) continue;
    const BudgetTerms bt = em.terms(e.terms);
    add(true, e.token, e.head, e.channel, e.terms.value, bt.angle + bt.trig + bt.prods + bt.fin);
  }
  // k's pass-through channels (exact: the input), and v (MLA: kv_c, never
  // rotated), on the judged tokens (every token but of a large case, judged
  // on a sample as its rotation is: the rest of both caches is still
  // compared whole, kv_cache_rest).
  for (const std::int64_t t : ref.tokens) {
    if (w.slots[static_cast<std::size_t>(t)] < 0) continue;
    for (int h = 0; h < c.kv_heads; ++h)
      for (int j = c.shape.rotary_dim; j < c.shape.head_dim; ++j)
        add(true, t, h, j, load_as_double(in.bytes[1].data(), static_cast<std::size_t>(g.offset(1, t, h, j)), dt), 0.0);
    for (int h = 0; h < w.v_heads(); ++h)
      for (int j = 0; j < w.v_channels(); ++j)
        add(false, t, h, j,
            load_as_double(v.data(), static_cast<std::size_t>((t * w.v_heads() + h) * w.v_channels() + j), dt), 0.0);
  }
  return out;
}

std::uint32_t cache_code(const ByteBuffer& cache, std::int64_t i, KvDtype d) {
  const std::size_t es = kv_dtype_size(d);
  std::uint32_t code = 0;
  std::memcpy(&code, cache.data() + static_cast<std::size_t>(i) * es, es);  // little-endian
  return code;
}

double code_tightness(std::uint32_t code, const CacheElementBudget& b, KvDtype d) {
  if (!std::isfinite(b.center) || !std::isfinite(b.radius)) return 0;
  const double reach = std::fabs(b.center) + b.radius;
  const std::uint32_t near = round_to_cache_code(reach, d, true);
  const double at = cache_code_value(near, d);
  const double top = cache_code_value(round_to_cache_code(HUGE_VAL, d, true), d);
  if (reach > top) return 0;
  // Half a step of the cache dtype at the reach: half the larger of the
  // gaps on either side of the code it rounds to (the gap holding it is
  // one of them, and no value below it rounds by more).
  double gap = 0;
  const double next = cache_code_value(near + 1, d);
  if (std::isfinite(next) && next > at) gap = next - at;
  if (near > 0) {
    const double prev = cache_code_value(near - 1, d);
    if (std::isfinite(prev) && prev < at) gap = std::max(gap, at - prev);
  }
  const double allowed = b.radius + gap / 2;
  return allowed > 0 ? std::fabs(cache_code_value(code, d) - b.center) / allowed : 0;
}

KvCacheVerdict judge_kv_cache(const Case& c, const KvRun& kv, const std::vector<KvCacheElement>& elements) {
  const KvWriteCase& w = kv.spec;
  KvCacheVerdict r;
  for (const KvCacheElement& e : elements) {
    const CacheElementBudget& b = e.budget;
    const std::uint32_t code = cache_code(e.in_k_cache ? kv.k_cache : kv.v_cache, e.offset, w.dtype);
    const std::int64_t out = b.steps_outside(code, w.dtype);
    if (out > 0 && r.first.empty())
      r.first =
          cache_element_name(c, w, e) + ": " + explain_cache_element(code, b, w.dtype) + " (" + w.describe() + ")";
    r.worst = std::max(r.worst, out);
    if (out == 0) r.tightness = std::max(r.tightness, code_tightness(code, b, w.dtype));
  }
  return r;
}

std::string cache_element_name(const Case& c, const KvWriteCase& w, const KvCacheElement& e) {
  const bool k = e.k;
  const std::int64_t token = e.token;
  const int head = e.head, channel = e.channel;
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

std::string kv_cache_rest_changed(const KvRun& kv) {
  const KvWriteCase& w = kv.spec;
  const std::size_t es = kv_dtype_size(w.dtype);
  for (int which = 0; which < 2; ++which) {
    const ByteBuffer& now = which == 0 ? kv.k_cache : kv.v_cache;
    const ByteBuffer& before = which == 0 ? kv.k_initial : kv.v_initial;
    // Where an element lies: NHD, HND, or MLA's one-head entries.
    const std::int64_t block_stride = which == 1 && w.kind == ROPECHECK_KV_CACHE_MLA_SPLIT ? w.v_block_stride : w.block_stride;
    const std::int64_t slot_stride = which == 1 && w.kind == ROPECHECK_KV_CACHE_MLA_SPLIT ? w.v_slot_stride : w.slot_stride;
    // A cache is mostly entries no token maps to, unchanged: compared a
    // chunk at a time, and only a chunk that differs walked byte by byte
    // against the bytes the write covers (made once, when first needed).
    // The byte walk over a whole cache was half of a differential fuzzer
    // execution on a KV-write kernel (a few tokens, caches of 4 blocks of
    // 64 entries).
    constexpr std::size_t kChunk = 4096;
    std::vector<bool> written;
    for (std::size_t i = 0; i < now.size(); ++i) {
      if (i % kChunk == 0) {
        const std::size_t n = std::min(kChunk, now.size() - i);
        if (std::memcmp(now.data() + i, before.data() + i, n) == 0) {
          i += n - 1;
          continue;
        }
        if (written.empty()) written = written_bytes(w, which);
      }
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
      return std::string(which == 0 ? "k_cache" : "v_cache") + " changed at slot " + std::to_string(slot) +
             " (block " + std::to_string(block) + ", entry " + std::to_string(entry) + "), head " +
             std::to_string(head) + ", which no token of the call maps to (" + std::to_string(padding) +
             " padding token(s); " + w.describe() + ")";
    }
  }
  return {};
}

CaseOutcome judge_with_kv_write(const ropecheck_impl_t& impl, const JudgedCase& j, const KernelRun& run,
                                JudgeDepth depth) {
  const Case& c = j.c;
  CaseOutcome out = judge(impl, j, run, nullptr, depth);
  if (out.outcome != Outcome::kPass || !run.kv) return out;
  const KvRun& kv = *run.kv;
  const KvCacheVerdict v =
      judge_kv_cache(c, kv,
                     kv_cache_elements(j, case_error_model(impl, c, j.ref.attention_factor),
                                       cache_write_policy(impl.kv_policy, kv.spec.dtype), kv.spec, kv.v));
  std::string why = v.first.empty() ? kv_cache_rest_changed(kv)
                                    : v.first + "; worst " + std::to_string(v.worst) + " code(s) outside";
  if (!why.empty()) {
    out.outcome = Outcome::kFail;
    out.message = "KV-cache write: " + why;
  }
  return out;
}

}  // namespace ropecheck
