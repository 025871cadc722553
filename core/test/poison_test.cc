// SPDX-License-Identifier: MIT
// core/cases/buffers.h fill_poison: what an out-of-place output holds before a
// call. Every element of a NaN poison is a NaN (an element a kernel never
// writes is then judged wrong), every element of a finite poison is a normal
// value of magnitude 2^-8 .. 2^8 in its dtype, both signs and many payloads
// occur, and the bytes past the last whole element are filled too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <set>
#include <vector>

#include "core/cases/buffers.h"
#include "ropecheck/dtype.h"
#include "ropecheck/names.h"

namespace ropecheck {
namespace {

class Poison : public ::testing::TestWithParam<ropecheck_dtype_t> {};

TEST_P(Poison, EveryElementIsOfItsKind) {
  const ropecheck_dtype_t t = GetParam();
  const std::size_t es = dtype_size(t);
  for (const PoisonKind kind : {PoisonKind::kNan, PoisonKind::kFinite}) {
    SCOPED_TRACE(poison_kind_name(kind));
    // 40003 elements and 3 bytes more: whole 64-bit draws, the drawn 64
    // KiB repeated (a partial repeat last), and a tail shorter than an
    // element.
    const std::size_t n = 40003, bytes = n * es + 3;
    std::vector<unsigned char> buf(bytes + 1, 0xee);
    fill_poison(buf.data(), bytes, t, kind);
    std::set<double> magnitudes;
    int negative = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = load_as_double(buf.data(), i, t);
      if (kind == PoisonKind::kNan) {
        ASSERT_TRUE(std::isnan(v)) << "element " << i << " is " << v;
        // The payload, as bits below the sign.
        std::uint64_t bits = 0;
        std::memcpy(&bits, buf.data() + i * es, es);
        magnitudes.insert(static_cast<double>(bits & ((std::uint64_t{1} << (8 * es - 1)) - 1)));
        negative += static_cast<int>((bits >> (8 * es - 1)) & 1);
      } else {
        ASSERT_TRUE(std::isfinite(v)) << "element " << i;
        ASSERT_GE(std::fabs(v), 0x1p-8) << "element " << i;
        ASSERT_LT(std::fabs(v), 0x1p9) << "element " << i;
        magnitudes.insert(std::fabs(v));
        negative += std::signbit(v) ? 1 : 0;
      }
    }
    EXPECT_GT(negative, static_cast<int>(n) / 4);
    EXPECT_LT(negative, static_cast<int>(3 * n) / 4);
    EXPECT_GT(magnitudes.size(), std::size_t{64});  // payloads drawn, not one pattern
    EXPECT_EQ(buf[bytes], 0xee);                      // nothing past the end
  }
}

TEST_P(Poison, ZerosAreZeroBytesToTheEnd) {
  const ropecheck_dtype_t t = GetParam();
  const std::size_t bytes = 70001 * dtype_size(t) + 1;
  std::vector<unsigned char> buf(bytes + 1, 0xee);
  fill_poison(buf.data(), bytes, t, PoisonKind::kZero);
  for (std::size_t i = 0; i < bytes; ++i) ASSERT_EQ(buf[i], 0) << i;
  EXPECT_EQ(buf[bytes], 0xee);
}

TEST(Poison, EveryKindIsDrawn) {
  // A kernel that computes only when its output holds what the harness
  // put there meets each state, zeros included (issue #48).
  std::set<int> seen;
  for (int i = 0; i < 400; ++i) seen.insert(static_cast<int>(draw_poison_kind()));
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kPoisonKinds));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Poison,
                         ::testing::Values(ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16, ROPECHECK_DTYPE_F32,
                                           ROPECHECK_DTYPE_F64),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ropecheck
