// SPDX-License-Identifier: MIT
// The case generator's invariant (issue #48): no case outside a kernel's
// declaration ever reaches the kernel. For random declarations, every case
// of the quick and standard suites is fitted as the gate fits it
// (fit_case), and every one outside_capabilities lets through is checked
// against the declaration by an independent reading of it here: dtypes,
// layouts, schemes and their restrictions, head_dim, partial rotary,
// direction, placement, the position dtype and every id's range,
// max_position, negative ids, multi-axis forms, and the fused parts the call
// would carry (the KV-cache write's cache dtype, scale kind and cache kind,
// the caller cos/sin cache's dtype). A case that does not fit must have been
// redrawn within the declaration or skipped, never narrowed.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <string>

#include "core/cases/buffers.h"
#include "core/cases/case_fit.h"
#include "core/cases/cos_sin_cache_case.h"
#include "core/cases/kv_write_case.h"
#include "core/kernel/declared_capabilities.h"
#include "ropecheck/axes.h"
#include "ropecheck/names.h"

namespace ropecheck {
namespace {

// A non-empty random subset of the `n` low bits.
std::uint32_t some_of(Rng& rng, int n) {
  std::uint32_t m = 0;
  while (m == 0) m = static_cast<std::uint32_t>(rng.below(std::uint64_t{1} << n));
  return m;
}

// A random declaration: every capability either granted or not, the
// position dtypes, bounds and fused parts drawn too.
ropecheck_impl_t random_declaration(Rng& rng) {
  ropecheck_impl_t t{};
  t.struct_size = sizeof t;
  t.abi_version = ROPECHECK_ABI_VERSION;
  t.abi_minor = ROPECHECK_ABI_VERSION_MINOR;
  t.name = "declared";
  t.caps.struct_size = sizeof t.caps;
  t.caps.layouts = some_of(rng, 2);
  t.caps.dtypes = some_of(rng, 3);
  t.caps.schemes = some_of(rng, ROPECHECK_SCHEME_COUNT);
  constexpr std::uint32_t kHeadDims[] = {64, 128, 256, 4096};
  t.caps.max_head_dim = rng.pick(kHeadDims);
  std::uint32_t f = 0;
  for (std::uint32_t bit : {ROPECHECK_CAP_INVERSE, ROPECHECK_CAP_PARTIAL_ROTARY, ROPECHECK_CAP_NEGATIVE_POSITIONS,
                            ROPECHECK_CAP_YARN_TRUNCATED_ONLY, ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR,
                            ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN, ROPECHECK_CAP_SEQ_STRIDES, ROPECHECK_CAP_AXES_SECTIONS,
                            ROPECHECK_CAP_AXES_INTERLEAVED, ROPECHECK_CAP_AXES_TABLE, ROPECHECK_CAP_AXIS_FREQUENCIES,
                            ROPECHECK_CAP_KV_CACHE_WRITE})
    if (rng.chance(0.5)) f |= bit;
  const std::uint32_t placement = some_of(rng, 2);
  f |= (placement & 1 ? ROPECHECK_CAP_IN_PLACE : 0) | (placement & 2 ? ROPECHECK_CAP_OUT_OF_PLACE : 0);
  const std::uint32_t positions = some_of(rng, 2);
  f |= (positions & 1 ? ROPECHECK_CAP_POS_INT32 : 0) | (positions & 2 ? ROPECHECK_CAP_POS_INT64 : 0);
  const double cache = rng.uniform();
  if (cache < 0.2) f |= ROPECHECK_CAP_COS_SIN_CACHE;
  else if (cache < 0.4) f |= ROPECHECK_CAP_CALLER_COS_SIN_CACHE;
  t.caps.flags = f;
  constexpr std::int64_t kMaxPositions[] = {0, 0, 2048, 4097, std::int64_t{1} << 20, std::int64_t{1} << 31};
  t.max_position = rng.pick(kMaxPositions);
  if (f & ROPECHECK_CAP_CALLER_COS_SIN_CACHE)
    t.cos_sin_cache_dtypes = some_of(rng, 3) | (rng.chance(0.3) ? ROPECHECK_COS_SIN_CACHE_OF_STORAGE : 0u);
  if (f & ROPECHECK_CAP_KV_CACHE_WRITE) {
    t.kv_policy.struct_size = sizeof t.kv_policy;
    t.kv_policy.cache_dtypes = some_of(rng, kKvDtypeCount);
    t.kv_policy.scale_kinds = some_of(rng, ROPECHECK_KV_SCALE_KIND_COUNT);
    t.kv_policy.scale_direction = rng.chance(0.5) ? ROPECHECK_KV_SCALE_MULTIPLY : ROPECHECK_KV_SCALE_DIVIDE;
    t.kv_policy.saturate = 1;
    t.kv_cache_kinds = some_of(rng, ROPECHECK_KV_CACHE_KIND_COUNT);
  }
  return t;
}

bool has(std::uint32_t mask, int bit) { return (mask >> bit) & 1u; }

// What the declaration forbids that the call of c would carry, read from
// the declaration directly (not through outside_capabilities); "" if none.
std::string violation(const ropecheck_impl_t& t, const Case& c) {
  const std::uint32_t f = t.caps.flags;
  if (!has(t.caps.dtypes, c.dtype)) return "dtype";
  if (!has(t.caps.layouts, c.layout)) return "layout";
  if (!has(t.caps.schemes, c.freq.scheme)) return "scheme";
  if ((f & ROPECHECK_CAP_YARN_TRUNCATED_ONLY) && c.freq.scheme == ROPECHECK_SCHEME_YARN && !c.freq.truncate)
    return "YaRN without truncation";
  if ((f & ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR) && c.freq.attention_factor) return "explicit attention factor";
  if ((f & ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN) &&
      (c.freq.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK || c.freq.scheme == ROPECHECK_SCHEME_LONGROPE) &&
      c.freq.seq_len > c.freq.original_max_position)
    return "runtime seq_len";
  if (c.shape.head_dim > static_cast<int>(t.caps.max_head_dim)) return "head_dim";
  if (c.shape.rotary_dim < c.shape.head_dim && !(f & ROPECHECK_CAP_PARTIAL_ROTARY)) return "partial rotary";
  if (c.direction == ROPECHECK_DIRECTION_INVERSE && !(f & ROPECHECK_CAP_INVERSE)) return "inverse";
  if (!(f & (c.in_place ? ROPECHECK_CAP_IN_PLACE : ROPECHECK_CAP_OUT_OF_PLACE))) return "placement";
  const bool i32 = c.position_type == ROPECHECK_INDEX_INT32;
  if (!(f & (i32 ? ROPECHECK_CAP_POS_INT32 : ROPECHECK_CAP_POS_INT64))) return "position dtype";
  const bool cached = f & (ROPECHECK_CAP_COS_SIN_CACHE | ROPECHECK_CAP_CALLER_COS_SIN_CACHE);
  for (const std::int64_t p : c.positions) {
    if (i32 && (p > 2147483647LL || p < -2147483647LL)) return "position " + std::to_string(p) + " in an int32 buffer";
    if (p < 0 && (!(f & ROPECHECK_CAP_NEGATIVE_POSITIONS) || cached)) return "negative position";
    if (t.max_position > 0 && (p >= t.max_position || -p >= t.max_position))
      return "position " + std::to_string(p) + " past max_position";
  }
  if (c.axes.multi()) {
    const std::uint32_t need = c.axes.assignment == ROPECHECK_AXES_SECTIONS      ? ROPECHECK_CAP_AXES_SECTIONS
                               : c.axes.assignment == ROPECHECK_AXES_INTERLEAVED ? ROPECHECK_CAP_AXES_INTERLEAVED
                                                                                 : ROPECHECK_CAP_AXES_TABLE;
    if (!(f & need)) return "multi-axis assignment";
    if (c.axes.frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS && !(f & ROPECHECK_CAP_AXIS_FREQUENCIES))
      return "per-axis frequencies";
  }
  if (c.batch_seq_len() > 0 && !(f & ROPECHECK_CAP_SEQ_STRIDES)) {
    // Without SEQ_STRIDES a batch must be one run of tokens (or one token per sequence).
    const Geometry g = geometry(c);
    for (int w = 0; w < 2 && g.seq_len != 1; ++w)
      if (g.seq_stride[w] != g.seq_len * g.token_stride[w]) return "sequence strides";
  }
  if (f & ROPECHECK_CAP_CALLER_COS_SIN_CACHE) {
    const ropecheck_dtype_t d = caller_cache_dtype(c, t.cos_sin_cache_dtypes);
    if (!has(t.cos_sin_cache_dtypes, d) && !((t.cos_sin_cache_dtypes & ROPECHECK_COS_SIN_CACHE_OF_STORAGE) && d == c.dtype))
      return "caller cache dtype";
  }
  if (f & ROPECHECK_CAP_KV_CACHE_WRITE) {
    if (const auto w = kv_write_case(c, t.kv_policy, t.kv_cache_kinds)) {
      if (!has(t.kv_policy.cache_dtypes, static_cast<int>(w->dtype))) return "kv cache dtype";
      if (!has(t.kv_policy.scale_kinds, w->scale_kind)) return "kv scale kind";
      if (!has(t.kv_cache_kinds ? t.kv_cache_kinds : 1u << ROPECHECK_KV_CACHE_K_AND_V, w->kind)) return "kv cache kind";
    }
  }
  return {};
}

TEST(DeclaredCases, NoCaseOutsideARandomDeclarationReachesTheCall) {
  Rng rng(0x6465636c61726564ull);  // "declared"
  int reached = 0, redrawn = 0, skipped = 0;
  for (int d = 0; d < 60; ++d) {
    const ropecheck_impl_t t = random_declaration(rng);
    for (Suite suite : {Suite::kQuick, Suite::kStandard}) {
      for (int i = 0; i < suite_size(suite); ++i) {
        bool changed = false;
        const Case c = fit_case(make_case(suite, 1, i), declared_choices(t), &changed);
        if (!outside_capabilities(t, c).empty()) {
          ++skipped;
          continue;
        }
        ++reached;
        redrawn += changed;
        const std::string why = violation(t, c);
        ASSERT_EQ(why, "") << "declaration " << d << ", " << suite_name(suite) << " case " << i << ": "
                           << c.describe();
      }
    }
  }
  // The draw exercises each branch: cases reach the call, some of them
  // redrawn, others skipped.
  EXPECT_GT(reached, 1000);
  EXPECT_GT(redrawn, 1000);
  EXPECT_GT(skipped, 1000);
  std::cout << reached << " cases reached the call (" << redrawn << " redrawn), " << skipped << " skipped\n";
}

TEST(DeclaredCases, AnInt32KernelIsHandedTheEdgeCasesWithInt32Ids) {
  // The edge class draws ids past 2^31 for int64 calls; fitted to a kernel
  // declaring int32 alone, each becomes one of int32's own edges, sign kept.
  ropecheck_impl_t t{};
  t.caps.layouts = 3;
  t.caps.dtypes = 7;
  t.caps.schemes = (1u << ROPECHECK_SCHEME_COUNT) - 1u;
  t.caps.max_head_dim = 4096;
  t.caps.flags = ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_INVERSE |
                 ROPECHECK_CAP_PARTIAL_ROTARY | ROPECHECK_CAP_POS_INT32 | ROPECHECK_CAP_NEGATIVE_POSITIONS |
                 ROPECHECK_CAP_SEQ_STRIDES;
  int past = 0;
  for (Suite suite : {Suite::kQuick, Suite::kStandard})
    for (int i = 0; i < suite_size(suite); ++i) {
      const Case drawn = make_case(suite, 1, i);
      const Case c = fit_case(drawn, declared_choices(t));
      ASSERT_EQ(c.position_type, ROPECHECK_INDEX_INT32) << i;
      for (std::size_t k = 0; k < drawn.positions.size(); ++k) {
        const std::int64_t p = drawn.positions[k], q = c.positions[k];
        if (fits_int32_position(p)) {
          EXPECT_EQ(q, p) << "an id int32 holds is kept";
        } else {
          ++past;
          EXPECT_TRUE(fits_int32_position(q)) << q;
          EXPECT_EQ(q < 0, p < 0) << "the sign is kept";
        }
      }
      EXPECT_EQ(outside_capabilities(t, c).find("int32"), std::string::npos) << c.describe();
    }
  EXPECT_GT(past, 5) << "the suites draw ids past int32 in their edge cases";
  // A case fixed in advance (a golden one) is not fitted: it is skipped.
  Case fixed = make_case(Suite::kQuick, 1, 0);
  fixed.position_type = ROPECHECK_INDEX_INT32;
  fixed.positions.assign(fixed.positions.size(), 2147483648LL);
  EXPECT_NE(outside_capabilities(t, fixed).find("int32"), std::string::npos);
}

}  // namespace
}  // namespace ropecheck
