// SPDX-License-Identifier: MIT
// The size classes of the suites: which class a case index belongs to, and a drawn case reshaped into it.
#include "core/cases/size_classes.h"

#include <algorithm>

#include "core/cases/rng.h"

namespace ropecheck {
namespace {

// Past 2^24 fp32 stops holding every integer; 2^31-1 is int32's last.
constexpr std::int64_t kInt32Edges[] = {(1 << 24) - 1, 1 << 24, (1 << 24) + 1, (1 << 24) + 3,
                                        (1 << 25) + 7, 2147483647, 0};
constexpr std::int64_t kInt64Edges[] = {2147483648LL, 2147483653LL, 4294967297LL, (1LL << 40) + 3};

// Consecutive positions from `start` for each of a case's sequences (a
// prefill chunk continuing a KV cache at `start`).
void prefill_positions(Choices& rng, std::int64_t max_start, Case* c) {
  c->positions.clear();
  for (std::int64_t s = 0; s < c->sequences(); ++s) {
    const std::int64_t start = rng.chance(0.3) ? 0 : rng.range(0, max_start);
    const std::int64_t n = c->batch_seq_len() > 0 ? c->batch_seq_len() : c->tokens;
    for (std::int64_t i = 0; i < n; ++i) c->positions.push_back(start + i);
  }
}

// Head dims of the models people run, odd pair counts included (80 is 40
// pairs, 144 is 72), and the partial rotary ratios in use (GPT-NeoX 0.25,
// Phi-2 0.4, ChatGLM / GLM-4 0.5).
ref::HeadShape draw_model_shape(Choices& rng, bool wide) {
  constexpr int kDims[] = {64, 80, 96, 128, 128, 144, 192, 256};
  ref::HeadShape s;
  s.head_dim = wide && rng.chance(0.1) ? 512 : rng.pick(kDims);
  const double r = rng.uniform();
  const double ratio = r < 0.7 ? 1.0 : r < 0.8 ? 0.25 : r < 0.9 ? 0.4 : 0.5;
  s.rotary_dim = std::max(2, static_cast<int>(s.head_dim * ratio) & ~1);
  return s;
}

// A new head shape, and a new frequency scheme of the case's kind when the
// rotated width changed (its per-pair factors are per rotary_dim).
void new_shape(Choices& rng, Case* c, ref::HeadShape s) {
  if (s.rotary_dim != c->shape.rotary_dim) c->freq = draw_scheme(rng, s.rotary_dim, c->freq.scheme);
  c->shape = s;
}

// Grouped-query heads: 1..max_kv kv heads, 1..max_group q heads per kv head.
void gqa(Choices& rng, Case* c, int max_kv, int max_group) {
  c->kv_heads = static_cast<int>(rng.range(1, max_kv));
  c->q_heads = c->kv_heads * static_cast<int>(rng.range(1, max_group));
}

// Many heads, a few tokens: multi-head or grouped attention at 64..128 q heads.
void many_heads(Choices& rng, bool quick, Case* c) {
  new_shape(rng, c, draw_model_shape(rng, !quick));
  if (rng.chance(0.3)) {  // multi-head attention: as many kv heads as q heads
    c->q_heads = c->kv_heads = static_cast<int>(rng.range(64, 128));
  } else {
    constexpr int kKv[] = {1, 2, 4, 8};
    c->kv_heads = rng.pick(kKv);
    c->q_heads = c->kv_heads * static_cast<int>((rng.range(64, 128) + c->kv_heads - 1) / c->kv_heads);
  }
  c->tokens = rng.range(1, 4);
  c->seq_len = 0;
  prefill_positions(rng, std::int64_t{1} << 20, c);
}

// What the default gate must reach for every kernel declaring it: the widest
// heads and the int32 and int64 position edges, some negated.
void edge_positions(Choices& rng, Case* c) {
  ref::HeadShape s;
  s.head_dim = rng.chance(0.5) ? 256 : 512;
  s.rotary_dim = rng.chance(0.7) ? s.head_dim : s.head_dim / 2;
  new_shape(rng, c, s);
  gqa(rng, c, 2, 2);
  c->seq_len = 0;
  c->positions.clear();
  const auto k32 = int32_edge_positions(), k64 = int64_edge_positions();
  c->position_type = rng.chance(0.5) ? ROPECHECK_INDEX_INT32 : ROPECHECK_INDEX_INT64;
  const bool negative = rng.chance(0.3);
  c->tokens = rng.range(3, 6);
  for (std::int64_t t = 0; t < c->tokens; ++t) {
    std::int64_t p = c->position_type == ROPECHECK_INDEX_INT64 && rng.chance(0.6) ? rng.pick(k64) : rng.pick(k32);
    if (negative && rng.chance(0.5)) p = -p;
    c->positions.push_back(p);
  }
}

}  // namespace

void reshape_to_class(Choices& rng, Suite suite, SizeClass cls, Case* c) {
  c->size_class = cls;
  const bool quick = suite == Suite::kQuick, exhaustive = suite == Suite::kExhaustive;
  switch (cls) {
    case SizeClass::kTiny:
      return;
    case SizeClass::kDecode: {  // one token per sequence, unrelated positions
      new_shape(rng, c, draw_model_shape(rng, !quick));
      c->tokens = quick ? rng.range(8, 64) : exhaustive ? rng.range(64, 512) : rng.range(16, 256);
      c->seq_len = 1;
      gqa(rng, c, 4, 4);
      c->positions.clear();
      const int scale = static_cast<int>(rng.range(8, 20));
      for (std::int64_t t = 0; t < c->tokens; ++t) c->positions.push_back(rng.range(0, std::int64_t{1} << scale));
      break;
    }
    case SizeClass::kShortPrefill: {
      new_shape(rng, c, draw_model_shape(rng, !quick));
      const std::int64_t seqs = rng.range(1, 4);
      c->seq_len = rng.range(16, 256 / seqs);
      c->tokens = seqs * c->seq_len;
      if (seqs == 1 && rng.chance(0.5)) c->seq_len = 0;
      gqa(rng, c, 4, 4);
      prefill_positions(rng, std::int64_t{1} << 16, c);
      break;
    }
    case SizeClass::kLongPrefill: {
      new_shape(rng, c, draw_model_shape(rng, false));
      // The quick suite's second long prefill (case 9) is past 4096 tokens:
      // a kernel's path for large calls (a KV-cache write skipped above
      // 4096, issue #48) meets the default gate; the others stay short.
      const bool past_4096 = quick && c->index == kSizeClassCount + static_cast<int>(SizeClass::kLongPrefill);
      c->tokens = past_4096 ? rng.range(4097, 4608)
                  : quick   ? rng.range(512, 1024)
                  : exhaustive ? rng.range(32768, 36864)
                               : rng.range(4096, 5120);
      c->seq_len = 0;
      gqa(rng, c, 2, 2);
      prefill_positions(rng, std::int64_t{1} << 20, c);
      break;
    }
    case SizeClass::kManyHeads:
      many_heads(rng, quick, c);
      break;
    case SizeClass::kEdges:
      edge_positions(rng, c);
      break;
  }
  if (c->memory == MemoryLayout::kFusedQkv) c->head_pad = 0;
  if (c->seq_len == 0) c->seq_pad = 0;
}


std::span<const std::int64_t> int32_edge_positions() { return kInt32Edges; }
std::span<const std::int64_t> int64_edge_positions() { return kInt64Edges; }

const char* size_class_name(SizeClass s) {
  switch (s) {
    case SizeClass::kTiny: return "tiny";
    case SizeClass::kDecode: return "decode";
    case SizeClass::kShortPrefill: return "short_prefill";
    case SizeClass::kLongPrefill: return "long_prefill";
    case SizeClass::kManyHeads: return "many_heads";
    case SizeClass::kEdges: return "edges";
  }
  return "?";
}

SizeClass size_class_of(Suite suite, std::uint64_t seed, int index) {
  if (index < kSizeClassCount * 4) return static_cast<SizeClass>(index % kSizeClassCount);
  // Its own stream, so the class does not move the case's other draws.
  Rng rng(seed ^ 0x73697a65636c6173ULL, static_cast<std::uint64_t>(index));
  const double long_share = suite == Suite::kExhaustive ? 0.004 : 0.02;
  const double u = rng.uniform();
  if (u < long_share) return SizeClass::kLongPrefill;
  if (u < long_share + 0.08) return SizeClass::kDecode;
  if (u < long_share + 0.16) return SizeClass::kShortPrefill;
  if (u < long_share + 0.22) return SizeClass::kManyHeads;
  if (u < long_share + 0.28) return SizeClass::kEdges;
  return SizeClass::kTiny;
}

}  // namespace ropecheck
