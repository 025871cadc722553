// SPDX-License-Identifier: MIT
// The exact result of multi-axis cases (core/judge/reference_result.h):
// M-RoPE with every axis at p is 1D RoPE at p bit for bit (each pair turns
// by p w_i whatever its axis), per-axis frequencies restart at w_0 = 1 on
// every axis, and the fast path returns the MPFR path's bits on every
// multi-axis family.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/cases/axis_cases.h"
#include "core/cases/buffers.h"
#include "core/judge/reference_result.h"

namespace ropecheck {
namespace {

// Multi-axis cases of the quick suite (index % 8 == 7 past the size-class cycle).
std::vector<Case> multi_axis_cases() {
  std::vector<Case> out;
  for (int i = 0; i < suite_size(Suite::kQuick); ++i)
    if (is_multi_axis_index(i)) out.push_back(make_case(Suite::kQuick, 1, i));
  return out;
}

TEST(MultiAxisReference, EveryFamilyIsInTheQuickSuite) {
  std::set<std::string> families;
  for (const Case& c : multi_axis_cases()) {
    EXPECT_TRUE(c.axes.multi());
    families.insert(c.family());
  }
  EXPECT_EQ(families.size(), static_cast<std::size_t>(kAxisFamilyCount));
}

TEST(MultiAxisReference, EqualAxesWithSharedFrequenciesAre1dBitForBit) {
  int checked = 0;
  for (Case c : multi_axis_cases()) {
    if (c.axes.frequencies != ROPECHECK_AXIS_FREQ_SHARED) continue;
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int a = 1; a < c.axis_count(); ++a)
        c.positions[static_cast<std::size_t>(t * c.axis_count() + a)] = c.position(t, 0);
    Case one = c;
    keep_first_axis(&one);
    const QkBuffers in = make_inputs(c);
    EXPECT_EQ(first_difference(compute_reference(c, in), compute_reference(one, in)), "") << c.describe();
    EXPECT_EQ(first_difference(compute_reference_mpfr(c, in), compute_reference_mpfr(one, in)), "") << c.describe();
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

TEST(MultiAxisReference, FastPathHasTheMpfrPathsBits) {
  for (const Case& c : multi_axis_cases()) {
    if (c.rotated_elements() > (1 << 16)) continue;
    const QkBuffers in = make_inputs(c);
    EXPECT_EQ(first_difference(compute_reference(c, in), compute_reference_mpfr(c, in)), "") << c.describe();
  }
}

TEST(MultiAxisReference, PerAxisFrequenciesRestartOnEveryAxis) {
  // A 2D ViT (Qwen2-VL's vision encoder: head_dim 80, base 1e4): each axis
  // has 20 pairs with w_j = 10000^(-2j/40).
  Case c = make_case(Suite::kQuick, 1, 0);
  c.shape = {80, 80};
  c.freq = ref::FreqSpec{};
  c.axes.num_axes = 2;
  c.axes.sections = {20, 20};
  c.axes.frequencies = ROPECHECK_AXIS_FREQ_PER_AXIS;
  std::vector<std::int64_t> pos;
  for (std::int64_t t = 0; t < c.tokens; ++t) pos.insert(pos.end(), {3 + t, 7});
  c.positions = pos;
  c.seq_len = 0;
  const ReferenceResult r = compute_reference(c, make_inputs(c));
  ASSERT_EQ(r.inv_freq.size(), 40u);
  EXPECT_EQ(r.inv_freq[0], 1.0);
  EXPECT_EQ(r.inv_freq[20], 1.0);
  for (int j = 0; j < 20; ++j) {
    EXPECT_EQ(r.inv_freq[static_cast<std::size_t>(j)], r.inv_freq[static_cast<std::size_t>(20 + j)]) << j;
    EXPECT_NEAR(r.inv_freq[static_cast<std::size_t>(j)], std::pow(10000.0, -2.0 * j / 40), 1e-15) << j;
  }
  // Pair 25 (axis 1) turns by 7 * w_5.
  EXPECT_EQ(r.pair_position(0, 25), 7);
  EXPECT_NEAR(r.angle[25], 7 * std::pow(10000.0, -10.0 / 40), 1e-14);
}

}  // namespace
}  // namespace ropecheck
