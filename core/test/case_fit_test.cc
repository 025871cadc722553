// SPDX-License-Identifier: MIT
// fit_case (core/cases/case_fit.h): a case outside a declaration is redrawn
// within it, choice by choice, the rest kept; a case inside it is itself;
// the redraw is a pure function of (suite, seed, index, declaration).
#include <gtest/gtest.h>

#include "core/cases/case_fit.h"
#include "ropecheck/abi_caps.h"

namespace ropecheck {
namespace {

constexpr std::uint32_t kEverything = ~0u;

DeclaredChoices only(ropecheck_dtype_t d, ropecheck_layout_t l, ropecheck_scheme_t s, std::uint32_t flags) {
  DeclaredChoices c;
  c.dtypes = 1u << d;
  c.layouts = 1u << l;
  c.schemes = 1u << s;
  c.flags = flags;
  return c;
}

TEST(CaseFit, ACaseInsideTheDeclarationIsItself) {
  DeclaredChoices all;
  all.dtypes = all.layouts = all.schemes = all.flags = kEverything;
  for (int i = 0; i < 120; ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    bool redrawn = true;
    EXPECT_EQ(fit_case(c, all, &redrawn).describe(), c.describe()) << i;
    EXPECT_FALSE(redrawn) << i;
  }
}

TEST(CaseFit, EveryChoiceOutsideIsRedrawnWithinAndTheRestKept) {
  const std::uint32_t flags = ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_POS_INT64;  // forward only
  const DeclaredChoices d = only(ROPECHECK_DTYPE_BF16, ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_SCHEME_YARN, flags);
  int redrawn_cases = 0;
  for (int i = 0; i < 120; ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    bool redrawn = false;
    const Case f = fit_case(c, d, &redrawn);
    redrawn_cases += redrawn;
    EXPECT_EQ(f.dtype, ROPECHECK_DTYPE_BF16) << i;
    EXPECT_EQ(f.layout, ROPECHECK_LAYOUT_HALF_SPLIT) << i;
    if (!(c.axes.multi() && c.axes.frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS)) {
      EXPECT_EQ(f.freq.scheme, ROPECHECK_SCHEME_YARN) << i;  // per-axis frequencies take default or linear only
    }
    EXPECT_EQ(f.direction, ROPECHECK_DIRECTION_FORWARD) << i;
    EXPECT_FALSE(f.in_place) << i;
    EXPECT_EQ(f.position_type, ROPECHECK_INDEX_INT64) << i;
    // What a redraw cannot follow stays as drawn; a negative id, which the
    // declaration does not take, by its magnitude.
    ASSERT_EQ(f.positions.size(), c.positions.size()) << i;
    for (std::size_t t = 0; t < c.positions.size(); ++t) EXPECT_EQ(f.positions[t], abs_position(c.positions[t])) << i;
    EXPECT_EQ(f.shape.head_dim, c.shape.head_dim) << i;
    EXPECT_EQ(f.shape.rotary_dim, c.shape.rotary_dim) << i;
    EXPECT_EQ(f.tokens, c.tokens) << i;
    EXPECT_EQ(f.data_seed, c.data_seed) << i;
    EXPECT_EQ(f.index, c.index) << i;
    // Pure: the same declaration redraws the same way.
    EXPECT_EQ(fit_case(make_case(Suite::kQuick, 1, i), d).describe(), f.describe()) << i;
  }
  EXPECT_GT(redrawn_cases, 110);
}

TEST(CaseFit, ANonDeclarationRedrawsNothing) {
  // No dtype declared at all: nothing to redraw into, the case is kept (and
  // the gate skips it, naming the dtype).
  DeclaredChoices none;
  none.layouts = none.schemes = none.flags = kEverything;
  const Case c = make_case(Suite::kQuick, 1, 0);
  bool redrawn = true;
  EXPECT_EQ(fit_case(c, none, &redrawn).dtype, c.dtype);
  EXPECT_FALSE(redrawn);
}

TEST(CaseFit, TheSuitesProportionsAmongTheDeclaredDtypes) {
  DeclaredChoices d;
  d.dtypes = (1u << ROPECHECK_DTYPE_F32) | (1u << ROPECHECK_DTYPE_F16);
  d.layouts = d.schemes = d.flags = kEverything;
  int f32 = 0, f16 = 0;
  for (int i = 0; i < 4000; ++i) {
    const Case c = fit_case(make_case(Suite::kExhaustive, 3, i), d);
    f32 += c.dtype == ROPECHECK_DTYPE_F32;
    f16 += c.dtype == ROPECHECK_DTYPE_F16;
  }
  EXPECT_EQ(f32 + f16, 4000);
  // f32 half the suite's draws plus two thirds of bf16's quarter: 2/3.
  EXPECT_NEAR(f32 / 4000.0, 2.0 / 3.0, 0.04);
}

}  // namespace
}  // namespace ropecheck
