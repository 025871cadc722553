// SPDX-License-Identifier: MIT
// The memory layouts and size classes of the case generator (core/cases/cases.h):
// every element of every view has its own place inside the buffer, each
// layout has the strides its engine uses, a kernel without sequence
// strides gets a batched case only where one run of tokens describes it, the
// suites reach the sizes the shapes issue names, and a large case is judged
// on a sample that keeps each sequence's ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/reference_result.h"
#include "core/cases/views.h"

namespace ropecheck {
namespace {

Case small_case(MemoryLayout m, std::int64_t seq_len) {
  Case c;
  c.shape.head_dim = 8;
  c.shape.rotary_dim = 8;
  c.tokens = 4;
  c.q_heads = 2;
  c.kv_heads = 1;
  c.positions = {0, 1, 2, 3};
  c.memory = m;
  c.seq_len = seq_len;
  c.head_pad = m == MemoryLayout::kFusedQkv ? 0 : 1;
  c.token_pad = 2;
  c.seq_pad = 3;
  return c;
}

TEST(MemoryLayouts, EveryViewElementHasItsOwnPlaceInsideTheBuffer) {
  for (int m = 0; m < kMemoryLayoutCount; ++m)
    for (std::int64_t seq_len : {0, 1, 2}) {
      const Case c = small_case(static_cast<MemoryLayout>(m), seq_len);
      const Geometry g = geometry(c);
      for (int w = 0; w < 2; ++w) {
        std::set<std::int64_t> seen;
        for (std::int64_t t = 0; t < c.tokens; ++t)
          for (int h = 0; h < g.heads[w]; ++h)
            for (int j = 0; j < g.head_dim; ++j) {
              const std::int64_t o = g.offset(w, t, h, j);
              EXPECT_GE(o, 0);
              EXPECT_LT(o, g.elements[w]) << memory_layout_name(c.memory);
              EXPECT_TRUE(seen.insert(o).second) << memory_layout_name(c.memory) << " reuses element " << o;
            }
        const std::vector<std::int64_t> starts = view_starts(g, w);
        EXPECT_TRUE(std::is_sorted(starts.begin(), starts.end()));
        EXPECT_EQ(starts.size() * static_cast<std::size_t>(g.head_dim), seen.size());
        for (const std::int64_t s : starts) EXPECT_TRUE(seen.count(s)) << memory_layout_name(c.memory);
      }
    }
}

// first_write_outside_view walks the gaps between the views; its definition
// is every element of the buffer that no view holds, in order.
TEST(MemoryLayouts, TheFirstWriteOutsideTheViewsIsFoundWhereverItIs) {
  for (int m = 0; m < kMemoryLayoutCount; ++m)
    for (std::int64_t seq_len : {0, 1, 2}) {
      const Case c = small_case(static_cast<MemoryLayout>(m), seq_len);
      const Geometry g = geometry(c);
      for (int w = 0; w < 2; ++w) {
        std::set<std::int64_t> inside;
        for (std::int64_t t = 0; t < c.tokens; ++t)
          for (int h = 0; h < g.heads[w]; ++h)
            for (int j = 0; j < g.head_dim; ++j) inside.insert(g.offset(w, t, h, j));
        const auto n = static_cast<std::size_t>(g.elements[w]) * g.esize;
        std::vector<unsigned char> before(n, 0x5a);
        EXPECT_EQ(first_write_outside_view(g, w, before.data(), before.data()), -1);
        for (std::int64_t o = 0; o < g.elements[w]; ++o) {
          std::vector<unsigned char> got = before;
          got[static_cast<std::size_t>(o) * g.esize + g.esize - 1] ^= 1;  // one byte of element o
          if (o + 2 < g.elements[w]) got[static_cast<std::size_t>(o + 2) * g.esize] ^= 1;  // and a later one
          std::int64_t want = -1;
          for (std::int64_t e : {o, o + 2})
            if (e < g.elements[w] && !inside.count(e)) {
              want = e;
              break;
            }
          EXPECT_EQ(first_write_outside_view(g, w, got.data(), before.data()), want)
              << memory_layout_name(c.memory) << " seq_len " << seq_len << " element " << o;
        }
      }
    }
}

TEST(MemoryLayouts, EachLayoutHasItsEnginesStrides) {
  // Fused qkv: rows of q_heads + 2 kv_heads heads; k starts q_heads heads in.
  Geometry g = geometry(small_case(MemoryLayout::kFusedQkv, 0));
  EXPECT_EQ(g.token_stride[0], (2 + 2 * 1) * 8 + 2);
  EXPECT_EQ(g.token_stride[1], g.token_stride[0]);
  EXPECT_EQ(g.base[1], 2 * 8);
  EXPECT_EQ(g.head_stride[0], 8);
  // Head-major [batch, heads, seq, dim]: a head's tokens are adjacent.
  g = geometry(small_case(MemoryLayout::kHeadMajor, 2));
  EXPECT_EQ(g.token_stride[0], 8 + 1);
  EXPECT_EQ(g.head_stride[0], 2 * 9 + 2);
  EXPECT_EQ(g.seq_stride[0], 2 * g.head_stride[0] + 3);
  EXPECT_EQ(g.offset(0, 3, 1, 0), g.seq_stride[0] + g.token_stride[0] + g.head_stride[0]);
  // Split strides: k's head and token strides differ from q's.
  g = geometry(small_case(MemoryLayout::kSplitStrides, 0));
  EXPECT_NE(g.head_stride[0], g.head_stride[1]);
}

TEST(MemoryLayouts, AKernelWithoutSeqStridesGetsOnlyWhatOneRunDescribes) {
  const Case hm = small_case(MemoryLayout::kHeadMajor, 2);
  EXPECT_FALSE(call_strides(hm, geometry(hm), false));
  const auto granted = call_strides(hm, geometry(hm), true);
  ASSERT_TRUE(granted);
  EXPECT_EQ(granted->seq_len, 2);
  // Decode: one token per sequence, the sequence stride becomes the token stride.
  const Case dec = small_case(MemoryLayout::kHeadMajor, 1);
  const auto flat = call_strides(dec, geometry(dec), false);
  ASSERT_TRUE(flat);
  EXPECT_EQ(flat->seq_len, 0);
  EXPECT_EQ(flat->token_stride[0], geometry(dec).seq_stride[0]);
  // A derived case whose token count no longer splits falls back to one run.
  Case odd = hm;
  odd.tokens = 3;
  odd.positions = {0, 1, 2};
  EXPECT_EQ(odd.batch_seq_len(), 0);
  EXPECT_TRUE(call_strides(odd, geometry(odd), false));
}

TEST(SizeClasses, TheSuitesReachTheSizesOfEachClass) {
  std::set<SizeClass> quick;
  for (int i = 0; i < kSizeClassCount * 4; ++i) quick.insert(make_case(Suite::kQuick, 1, i).size_class);
  EXPECT_EQ(quick.size(), static_cast<std::size_t>(kSizeClassCount));
  const auto long_tokens = [](Suite s) {
    return make_case(s, 1, static_cast<int>(SizeClass::kLongPrefill)).tokens;
  };
  EXPECT_GE(long_tokens(Suite::kQuick), 512);
  EXPECT_GE(long_tokens(Suite::kStandard), 4096);
  EXPECT_GE(long_tokens(Suite::kExhaustive), 32768);
  const Case d = make_case(Suite::kQuick, 1, static_cast<int>(SizeClass::kDecode));
  EXPECT_EQ(d.seq_len, 1);
  EXPECT_GE(d.tokens, 8);
  const Case h = make_case(Suite::kQuick, 1, static_cast<int>(SizeClass::kManyHeads));
  EXPECT_GE(h.q_heads, 64);
  EXPECT_LE(h.q_heads, 128);
  // The capability edges: past 2^24 in every edge case.
  for (int i = static_cast<int>(SizeClass::kEdges); i < kSizeClassCount * 4; i += kSizeClassCount)
    EXPECT_GT(make_case(Suite::kQuick, 1, i).max_abs_position(), 1 << 24);
}

TEST(SizeClasses, ALargeCaseIsJudgedOnASampleKeepingEachSequencesEnds) {
  Case c = make_case(Suite::kStandard, 1, static_cast<int>(SizeClass::kLongPrefill));
  c.q_heads = 8;  // 4096+ tokens of 10 heads of 128: over the sampling threshold
  c.kv_heads = 2;
  c.shape.head_dim = c.shape.rotary_dim = 128;
  ASSERT_GT(c.rotated_elements(), kSampleAbove);
  const std::vector<std::int64_t> t = judged_tokens(c);
  EXPECT_EQ(static_cast<std::int64_t>(t.size()), kSampledTokens);
  EXPECT_EQ(t.front(), 0);
  EXPECT_EQ(t.back(), c.tokens - 1);
  EXPECT_TRUE(std::is_sorted(t.begin(), t.end()));
  EXPECT_EQ(judged_tokens(c), t) << "the sample is seeded";
  c.tokens = 6;
  c.positions.resize(6);
  EXPECT_EQ(judged_tokens(c).size(), 6u);
}

// for_each_pair (the judge's walk) gives what elements() gives, a pair at a
// time: every quick case of the first two size-class cycles and the first
// multi-axis ones, sampled large cases among them.
TEST(MemoryLayouts, ThePairWalkIsTheElementWalk) {
  const auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (int idx = 0; idx < 48; ++idx) {
    const Case c = make_case(Suite::kQuick, 1, idx);
    const ReferenceResult r = compute_reference(c, make_inputs(c));
    for (int w = 0; w < 2; ++w) {
      auto it = r.elements(w).begin();
      std::size_t n = 0;
      r.for_each_pair(w, [&](const ReferenceResult::PairElements& p) {
        for (int side = 0; side < 2; ++side, ++it, ++n) {
          const ReferenceElement e = *it;
          const ElementTerms &a = e.terms, &b = p.terms[static_cast<std::size_t>(side)];
          EXPECT_TRUE(e.token == p.token && e.head == p.head && e.channel == p.channel[side] &&
                      e.offset == p.offset[side] && same(e.rounded, p.rounded[side]))
              << "case " << idx << " element " << n;
          EXPECT_TRUE(same(a.x, b.x) && same(a.y, b.y) && same(a.value, b.value) && same(a.partner, b.partner) &&
                      same(a.cos_a, b.cos_a) && same(a.sin_a, b.sin_a) && same(a.abs_angle, b.abs_angle) &&
                      a.position == b.position && a.pair == b.pair && a.freq_group == b.freq_group &&
                      a.side == b.side)
              << "case " << idx << " element " << n;
        }
      });
      EXPECT_EQ(n, r.elements(w).size()) << "case " << idx;
    }
  }
}

}  // namespace
}  // namespace ropecheck
