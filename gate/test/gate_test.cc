// SPDX-License-Identifier: MIT
// The gate itself: every built-in implementation passes the quick suite,
// the case grid is deterministic, and a reproduce line rebuilds its case.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <sstream>

#include "core/cases/axis_cases.h"
#include "gate/report_json.h"
#include "gate/test/gate_run.h"
#include "impls/registry.h"
#include "mutants/mutant_kernel.h"
#include "ropecheck/names.h"

namespace ropecheck {
namespace {

// Every built-in kernel passing the quick suite, isolated as README's main
// job runs it, is the ctest mutants_all_killed's "correct implementation"
// table (`ropecheck mutants` fails on any of them failing). Here, in process:
// scalar_naive, which takes every form, passes, and its report holds every
// scheme and every multi-axis family (core/cases/axis_cases.h).
TEST(Check, TheNaiveKernelPassesTheQuickSuiteInProcessOverEveryFamily) {
  const ropecheck_impl_t* naive = nullptr;
  for (const ropecheck_impl_t* i : builtin_impls())
    if (std::string(i->name) == "scalar_naive") naive = i;
  ASSERT_NE(naive, nullptr);
  const GateRun g = run_quick_gate({naive});
  const GateReport& r = g.report;
  EXPECT_TRUE(r.passed()) << g.text;
  int run = 0;
  for (const auto& [fam, f] : r.impls[0].families) run += f.passed + f.failed;
  EXPECT_GT(run, suite_size(Suite::kQuick) / 3) << "ran too few cases";
  EXPECT_EQ(r.impls[0].families.size(), static_cast<std::size_t>(ROPECHECK_SCHEME_COUNT + kAxisFamilyCount)) << g.text;
  for (const char* f : {"mrope_sections", "mrope_interleaved", "mrope_text", "axial_2d", "axes_3d", "axes_table"})
    EXPECT_TRUE(r.impls[0].families.count(f)) << f;
  std::cout << g.text;
}

// A kernel declaring one dtype, one layout and one scheme is judged on the
// suite's full count of cases (#34: a bf16-only kernel was judged on 1 case
// of 120 and failed the verdict floor, nothing wrong found), the redraws
// counted in the report; a run of one case (a reproduce line) judges the
// case the full run judged.
TEST(Check, ANarrowDeclarationIsJudgedOnTheSuitesFullCount) {
  ropecheck_impl_t narrow{};
  for (const ropecheck_impl_t* i : builtin_impls())
    if (std::string(i->name) == "scalar_naive") narrow = *i;
  ASSERT_NE(narrow.name, nullptr);
  narrow.caps.dtypes = 1u << ROPECHECK_DTYPE_BF16;
  narrow.caps.layouts = 1u << ROPECHECK_LAYOUT_HALF_SPLIT;
  narrow.caps.schemes = 1u << ROPECHECK_SCHEME_YARN;
  const GateRun g = run_quick_gate({&narrow}, 40, {"ConformsToReference"});
  EXPECT_TRUE(g.report.passed()) << g.text;
  const ImplReport& r = g.report.impls[0];
  const PropertyStats& conf = property_stats(r, "ConformsToReference");
  // Every case but a multi-axis one with per-axis frequencies (default or
  // linear only) is judged.
  EXPECT_GE(conf.passed, 38) << g.text;
  EXPECT_GT(r.redrawn, 35) << g.text;
  ASSERT_TRUE(r.families.count("yarn")) << g.text;
  EXPECT_GE(r.families.at("yarn").passed, 36) << g.text;
  // The same declaration without the redraw: the suite's own bf16
  // half_split YaRN cases, a handful.
  GateOptions o;
  o.suite = Suite::kQuick;
  o.seed = 1;
  o.cases = 40;
  o.impls = {&narrow};
  o.properties = {"ConformsToReference"};
  o.redraw = false;
  const GateReport few = run_gate(o);
  EXPECT_LT(property_stats(few.impls[0], "ConformsToReference").passed, 5);
  EXPECT_EQ(few.impls[0].redrawn, 0);
  // Under a floor of 10 judged cases it fails with no failing case, and
  // every output says why: the text, the JSON (read back too), JUnit.
  o.min_judged = 10;
  const GateReport floor = run_gate(o);
  ASSERT_FALSE(floor.passed());
  EXPECT_TRUE(floor.impls[0].failures.empty());
  std::ostringstream text, junit;
  print_failures(floor, text);
  write_junit(floor, junit);
  const std::string json = report_to_json(floor);
  for (const std::string& out : {text.str(), junit.str(), json}) {
    EXPECT_NE(out.find("judged on "), std::string::npos) << out;
    EXPECT_NE(out.find("fewer than --min-judged 10"), std::string::npos) << out;
    EXPECT_NE(out.find("skipped for: outside capabilities: "), std::string::npos) << out;
  }
  EXPECT_FALSE(report_from_json(json).passed());
  o.min_judged = 1;
  // One case alone, as its reproduce line runs it, is the case the full
  // run judged: the redraw depends on (suite, seed, index, declaration).
  o.redraw = true;
  o.cases.reset();
  o.only_case = 17;
  const GateReport one = run_gate(o);
  EXPECT_EQ(one.impls[0].redrawn, 1);
  EXPECT_EQ(property_stats(one.impls[0], "ConformsToReference").passed, 1);
  ASSERT_EQ(one.impls[0].failures.size(), 0u);
  ASSERT_TRUE(one.impls[0].families.count("yarn"));
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
  RunHeader run;
  run.suite = Suite::kStandard;
  run.seed = 99;
  EXPECT_EQ(reproduce_command(run, "scalar_naive", 17),
            "ropecheck check --impl scalar_naive --suite standard --seed 99 --case 17");
  // A run from a config file reproduces with it, in every line that names a case.
  run.config_path = "rope.json";
  EXPECT_EQ(reproduce_command(run, "k", 3, "PreservesPairNorm"),
            "ropecheck check --impl k --suite standard --seed 99 --case 3 --property PreservesPairNorm --config rope.json");
}

// A run with the SIMD kernels pinned to one target prints reproduce lines
// that pin it too (the registry says what to set, the gate sets it first);
// a value that is no target name is not echoed into a shell command.
TEST(Check, ReproduceCommandCarriesThePinnedSimdTarget) {
  const char* before = std::getenv(kSimdTargetEnv);
  const std::string saved = before ? before : "";
  setenv(kSimdTargetEnv, "AVX2", 1);
  EXPECT_EQ(builtin_reproduce_environment(), "ROPECHECK_SIMD_TARGET=AVX2 ");
  GateOptions o;
  o.suite = Suite::kQuick;
  o.seed = 1;
  o.only_case = 3;
  o.properties = {"ConformsToReference"};
  const ropecheck_impl_t wrong = *mutant::mutant_impl(mutant::Bug::layout_swapped);
  o.impls = {&wrong};
  o.reproduce_environment = builtin_reproduce_environment();
  const GateReport r = run_gate(o);
  ASSERT_FALSE(r.impls.at(0).failures.empty());
  EXPECT_EQ(r.impls[0].failures[0].reproduce.rfind("ROPECHECK_SIMD_TARGET=AVX2 ropecheck check --impl ", 0), 0u)
      << r.impls[0].failures[0].reproduce;
  setenv(kSimdTargetEnv, "AVX2; rm -rf x", 1);
  EXPECT_EQ(builtin_reproduce_environment(), "");
  if (before)
    setenv(kSimdTargetEnv, saved.c_str(), 1);
  else
    unsetenv(kSimdTargetEnv);
}

}  // namespace
}  // namespace ropecheck
