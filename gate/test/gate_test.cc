// The gate itself: every built-in implementation passes the quick suite,
// the case grid is deterministic, and a reproduce line rebuilds its case.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <sstream>

#include "core/cases/axis_cases.h"
#include "gate/test/gate_run.h"
#include "impls/registry.h"
#include "ropecheck/names.h"

namespace ropecheck {
namespace {

TEST(Check, EveryBuiltinImplementationPassesTheQuickSuite) {
  const GateRun g = run_quick_gate({builtin_impls().begin(), builtin_impls().end()});
  const GateReport& r = g.report;
  EXPECT_TRUE(r.passed()) << g.text;
  for (const auto& i : r.impls) {
    int run = 0;
    for (const auto& [fam, f] : i.families) run += f.passed + f.failed;
    EXPECT_GT(run, suite_size(Suite::kQuick) / 3) << i.name << " ran too few cases";
  }
  // Every scheme and every multi-axis family (core/cases/axis_cases.h) appears as
  // a family of scalar_naive, which takes every form.
  EXPECT_EQ(r.impls[0].name, "scalar_naive");
  EXPECT_EQ(r.impls[0].families.size(), static_cast<std::size_t>(ROPECHECK_SCHEME_COUNT + kAxisFamilyCount)) << g.text;
  for (const char* f : {"mrope_sections", "mrope_interleaved", "mrope_text", "axial_2d", "axes_3d", "axes_table"})
    EXPECT_TRUE(r.impls[0].families.count(f)) << f;
  std::cout << g.text;
}

TEST(Check, CasesAreAPureFunctionOfSuiteSeedAndIndex) {
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(make_case(Suite::kQuick, 7, i).describe(), make_case(Suite::kQuick, 7, i).describe());
    EXPECT_EQ(make_case(Suite::kQuick, 7, i).data_seed, make_case(Suite::kQuick, 7, i).data_seed);
  }
  EXPECT_NE(make_case(Suite::kQuick, 7, 0).describe(), make_case(Suite::kQuick, 8, 0).describe());
}

TEST(Check, GridCoversLayoutsDtypesPartialRotaryAndLongContext) {
  int partial = 0, interleaved = 0, bf16 = 0, f16 = 0, long_ctx = 0, gqa = 0, inverse = 0;
  for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    partial += c.shape.rotary_dim < c.shape.head_dim;
    interleaved += c.layout == ROPECHECK_LAYOUT_INTERLEAVED;
    bf16 += c.dtype == ROPECHECK_DTYPE_BF16;
    f16 += c.dtype == ROPECHECK_DTYPE_F16;
    long_ctx += c.max_abs_position() >= (1 << 20);
    gqa += c.q_heads > c.kv_heads;
    inverse += c.direction == ROPECHECK_DIRECTION_INVERSE;
  }
  EXPECT_GT(partial, 10);
  EXPECT_GT(interleaved, 30);
  EXPECT_GT(bf16, 10);
  EXPECT_GT(f16, 10);
  EXPECT_GT(long_ctx, 5);
  EXPECT_GT(gqa, 30);
  EXPECT_GT(inverse, 5);
}

TEST(Check, ReproduceCommandNamesEverythingNeeded) {
  EXPECT_EQ(reproduce_command("scalar_naive", Suite::kStandard, 99, 17),
            "ropecheck check --impl scalar_naive --suite standard --seed 99 --case 17");
}

// A run with the SIMD kernels pinned to one target prints reproduce lines
// that pin it too; a value that is no target name is not echoed into a
// shell command.
TEST(Check, ReproduceCommandCarriesThePinnedSimdTarget) {
  const char* before = std::getenv(kSimdTargetEnv);
  const std::string saved = before ? before : "";
  setenv(kSimdTargetEnv, "AVX2", 1);
  EXPECT_EQ(reproduce_command("simd_otf", Suite::kQuick, 1, 3),
            "ROPECHECK_SIMD_TARGET=AVX2 ropecheck check --impl simd_otf --suite quick --seed 1 --case 3");
  setenv(kSimdTargetEnv, "AVX2; rm -rf x", 1);
  EXPECT_EQ(reproduce_command("simd_otf", Suite::kQuick, 1, 3),
            "ropecheck check --impl simd_otf --suite quick --seed 1 --case 3");
  if (before)
    setenv(kSimdTargetEnv, saved.c_str(), 1);
  else
    unsetenv(kSimdTargetEnv);
}

}  // namespace
}  // namespace ropecheck
