// SPDX-License-Identifier: MIT
// The cos/sin cache ropecheck passes in to a kernel granting
// CALLER_COS_SIN_CACHE (ABI 1.6): its dtype is one the kernel declares,
// drawn per case and the same every time; every row a position of the case
// names holds m cos | m sin of the exact angles rounded once to that dtype
// (checked against the MPFR path, reference/rotation.h, not the fast path
// that builds it), every other row NaN; a write into it is seen.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "core/cases/cos_sin_cache_case.h"
#include "core/kernel/caller_cos_sin_cache.h"
#include "core/kernel/declared_capabilities.h"
#include "reference/rotation.h"
#include "reference/rounding.h"
#include "ropecheck/float_compare.h"

namespace ropecheck {
namespace {

constexpr std::uint32_t kF32OrStorage = (1u << ROPECHECK_DTYPE_F32) | ROPECHECK_COS_SIN_CACHE_OF_STORAGE;

bool same_bits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (exactly_equal(a, b) && std::signbit(a) == std::signbit(b));
}

TEST(CallerCosSinCache, ItsDtypeIsOneTheKernelDeclaresDrawnPerCase) {
  std::set<int> drawn_narrow;
  for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    const ropecheck_dtype_t d = caller_cache_dtype(c, kF32OrStorage);
    EXPECT_TRUE(d == ROPECHECK_DTYPE_F32 || d == c.dtype) << c.describe();
    EXPECT_EQ(d, caller_cache_dtype(make_case(Suite::kQuick, 1, i), kF32OrStorage));  // a reproduce line's
    if (c.dtype != ROPECHECK_DTYPE_F32) drawn_narrow.insert(d);
    EXPECT_EQ(caller_cache_dtype(c, 1u << ROPECHECK_DTYPE_F16), ROPECHECK_DTYPE_F16);
  }
  // Both the fp32 cache and the activation dtype's are drawn for bf16/fp16 q.
  EXPECT_EQ(drawn_narrow.size(), 3u);
  EXPECT_EQ(declared_cache_dtypes(ROPECHECK_COS_SIN_CACHE_OF_STORAGE, ROPECHECK_DTYPE_BF16).size(), 1u);
  EXPECT_EQ(declared_cache_dtypes(1u << ROPECHECK_DTYPE_F64, ROPECHECK_DTYPE_F32).size(), 0u);
}

// A case that fixes its cache's dtype (a golden case, whose files hold the
// cache) hands exactly that one to a kernel declaring it, and a kernel
// that does not read it is outside its capabilities, named.
TEST(CallerCosSinCache, ACaseFixingItsDtypeGetsItOrDeclinesTheKernel) {
  Case c;
  c.shape = {8, 8};
  c.tokens = 2;
  c.positions = {3, 5};
  c.dtype = ROPECHECK_DTYPE_BF16;
  for (const ropecheck_dtype_t d : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_BF16}) {
    c.caller_cache_dtype = d;
    EXPECT_EQ(caller_cache_dtype(c, kF32OrStorage), d);
  }
  ropecheck_impl_t reader{};
  reader.caps.layouts = reader.caps.dtypes = reader.caps.schemes = ~0u;
  reader.caps.max_head_dim = 1024;
  reader.caps.flags = ROPECHECK_CAP_CALLER_COS_SIN_CACHE | ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_POS_INT64;
  reader.cos_sin_cache_dtypes = 1u << ROPECHECK_DTYPE_F32;
  c.caller_cache_dtype = ROPECHECK_DTYPE_BF16;
  EXPECT_NE(outside_capabilities(reader, c).find("the case's cos/sin cache in bf16"), std::string::npos)
      << outside_capabilities(reader, c);
  c.caller_cache_dtype = ROPECHECK_DTYPE_F32;
  EXPECT_EQ(outside_capabilities(reader, c), "");
}

// A few small cases of every dtype, one with an attention factor m != 1.
TEST(CallerCosSinCache, RowsOfTheCasePositionsHoldTheExactValuesRoundedOnce) {
  int checked = 0;
  bool scaled = false;
  for (int i = 0; i < suite_size(Suite::kQuick) && (checked < 6 || !scaled); ++i) {
    Case c = make_case(Suite::kQuick, 1, i);
    if (c.max_abs_position() > 5000 || c.axes.multi() || c.tokens > 64) continue;
    bool negative = false;
    for (std::int64_t p : c.positions) negative |= p < 0;
    if (negative) continue;
    ref::ReferenceRope<ref::Real> exact(c.freq, c.shape);
    const ref::Real m = exact.freqs().attention_factor;
    scaled |= !exactly_equal(ref::round_to_dtype(m, ROPECHECK_DTYPE_F64), 1.0);
    const std::int64_t rows = c.max_abs_position() + 2;  // one row no position names
    for (const ropecheck_dtype_t d : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16}) {
      CallerCosSinCache cache;
      cache.build(c, d, rows);
      const std::set<std::int64_t> named(c.positions.begin(), c.positions.end());
      const int half = c.shape.rotary_dim / 2;
      for (std::int64_t r = 0; r < rows; ++r)
        for (int j = 0; j < half; ++j) {
          if (!named.count(r)) {
            EXPECT_TRUE(std::isnan(cache.value(r, j)) && std::isnan(cache.value(r, half + j))) << r;
            continue;
          }
          const ref::ReferenceRope<ref::Real>::Trig& tr = exact.trig(r);
          const ref::Real mc = m * tr.cos[static_cast<std::size_t>(j)], ms = m * tr.sin[static_cast<std::size_t>(j)];
          EXPECT_TRUE(same_bits(cache.value(r, j), ref::round_to_dtype(mc, d))) << c.describe() << " row " << r << " pair " << j;
          EXPECT_TRUE(same_bits(cache.value(r, half + j), ref::round_to_dtype(ms, d))) << c.describe() << " row " << r;
        }
      EXPECT_TRUE(cache.unchanged());
    }
    ++checked;
  }
  EXPECT_GE(checked, 6);
  EXPECT_TRUE(scaled) << "no case with an attention factor";
}

TEST(CallerCosSinCache, AWriteIntoItIsSeenAndTheNextBuildRepairsIt) {
  const Case c = make_case(Suite::kQuick, 1, 3);
  CallerCosSinCache cache;
  cache.build(c, ROPECHECK_DTYPE_BF16, c.max_abs_position() + 1);
  const std::uint64_t named = cache.generation();
  cache.build(c, ROPECHECK_DTYPE_BF16, c.max_abs_position() + 1);
  EXPECT_EQ(cache.generation(), named);  // the same bytes keep their name (isolation keeps them)
  ASSERT_TRUE(cache.unchanged());
  static_cast<unsigned char*>(const_cast<void*>(cache.data()))[cache.size_bytes() - 1] ^= 1;
  EXPECT_FALSE(cache.unchanged());
  cache.build(c, ROPECHECK_DTYPE_BF16, c.max_abs_position() + 1);
  EXPECT_TRUE(cache.unchanged());
  EXPECT_NE(cache.generation(), named);
}

}  // namespace
}  // namespace ropecheck
