// SPDX-License-Identifier: MIT
// The multi-axis assignments (ropecheck/axes.h) against their published
// definitions, and the validation of a multi-axis spec naming its field.
//   Qwen2-VL: mrope_section (16, 24, 24) of 64 pairs, consecutive blocks
//   (transformers modeling_qwen2_vl.py, apply_multimodal_rotary_pos_emb).
//   Qwen3-VL: mrope_section (24, 20, 20), pair i on axis i % 3 for i < 3 *
//   section (transformers modeling_qwen3_vl.py, apply_interleaved_mrope).
#include <gtest/gtest.h>

#include <vector>

#include "reference/axis_spec.h"
#include "ropecheck/axes.h"

namespace ropecheck::ref {
namespace {

TEST(AxisAssignment, SectionsAreConsecutiveBlocks) {
  const std::int32_t s[] = {16, 24, 24};
  for (int i = 0; i < 64; ++i) {
    const int want = i < 16 ? 0 : i < 40 ? 1 : 2;
    EXPECT_EQ(pair_axis_of(ROPECHECK_AXES_SECTIONS, 3, s, nullptr, i), want) << i;
    EXPECT_EQ(pair_index_in_axis(ROPECHECK_AXES_SECTIONS, 3, s, nullptr, i), i - (want == 0 ? 0 : want == 1 ? 16 : 40));
  }
  EXPECT_EQ(axes_error(64, 3, ROPECHECK_AXES_SECTIONS, s, nullptr), "");
}

TEST(AxisAssignment, InterleavedIsQwen3VlRoundRobin) {
  const std::int32_t s[] = {24, 20, 20};
  ASSERT_EQ(axes_error(64, 3, ROPECHECK_AXES_INTERLEAVED, s, nullptr), "");
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 64; ++i) {
    const int want = i < 60 ? i % 3 : 0;  // H at 1, 4, ..., 58; W at 2, 5, ..., 59; T elsewhere
    EXPECT_EQ(pair_axis_of(ROPECHECK_AXES_INTERLEAVED, 3, s, nullptr, i), want) << i;
    ++counts[want];
  }
  EXPECT_EQ(counts[0], 24);
  EXPECT_EQ(counts[1], 20);
  EXPECT_EQ(counts[2], 20);
  EXPECT_EQ(pair_index_in_axis(ROPECHECK_AXES_INTERLEAVED, 3, s, nullptr, 61), 21);  // T: 0, 3, ..., 57, 60, 61
}

TEST(AxisAssignment, InvalidAssignmentsNameTheFieldAndBound) {
  const std::int32_t short_sum[] = {16, 24, 20};
  EXPECT_EQ(axes_error(64, 3, ROPECHECK_AXES_SECTIONS, short_sum, nullptr),
            "axis_sections: must sum to rotary_dim/2 = 64 (got 60)");
  const std::int32_t too_many[] = {2, 22, 0};  // 22 round-robin pairs on axis 1 need 3 * 22 - 2 = 64 < 24 pairs
  EXPECT_EQ(axes_error(24, 3, ROPECHECK_AXES_INTERLEAVED, too_many, nullptr).rfind("axis_sections[1]: ", 0), 0u);
  const std::int32_t table[] = {0, 1, 2, 3};
  EXPECT_EQ(axes_error(4, 3, ROPECHECK_AXES_TABLE, nullptr, table), "pair_axis[3]: must be in [0, num_axes = 3) (got 3)");
  EXPECT_EQ(axes_error(4, 0, ROPECHECK_AXES_TABLE, nullptr, table), "num_axes: must be in [1, 8] (got 0)");
  EXPECT_EQ(axes_error(4, 2, 3, short_sum, nullptr), "axis_assignment: must be SECTIONS, INTERLEAVED or TABLE (got 3)");
}

TEST(AxisSpec, PerAxisFrequenciesRestartTheFormulaPerAxis) {
  AxisSpec a;
  a.num_axes = 2;
  a.sections = {20, 20};
  a.frequencies = ROPECHECK_AXIS_FREQ_PER_AXIS;
  FreqSpec f;
  EXPECT_NO_THROW(validate_axes(a, f, {80, 80}));
  const PairAxes p = pair_axes(a, 80);
  EXPECT_EQ(p.group_rotary_dim, (std::vector<int>{40, 40}));
  EXPECT_EQ(p.group[25], 1);
  EXPECT_EQ(p.index[25], 5);
  f.scheme = ROPECHECK_SCHEME_YARN;
  try {
    validate_axes(a, f, {80, 80});
    ADD_FAILURE() << "per-axis YaRN accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "axis_frequencies");
  }
  a.sections = {20, 19};
  try {
    validate_axes(a, FreqSpec{}, {80, 80});
    ADD_FAILURE() << "sections summing to 39 accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "axis_sections");
  }
}

}  // namespace
}  // namespace ropecheck::ref
