// SPDX-License-Identifier: MIT
// Golden vectors of the model zoo (issue #21): `golden export --config`
// turns each golden/zoo/<family>.json into cases named by model and layer
// type; the catalogue's control kernel passes every family's export, and
// each config bug of mutants/config_mutants.h is killed by the export of
// the model it was published against.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "core/config/model_rope.h"
#include "golden/export/exporter.h"
#include "golden/suites/suites.h"
#include "golden/verify/verifier.h"
#include "mutants/config_mutants.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck::golden {
namespace {

namespace fs = std::filesystem;

std::string export_family(const fs::path& config) {
  const fs::path out = fs::temp_directory_path() / ("ropecheck_zoo_golden_" + config.stem().string());
  ExportOptions o;
  o.config = read_model_rope_file(config.string());
  o.config_name = config.stem().string();
  o.out_dir = out.string();
  o.threads = 1;
  export_golden(o);
  return out.string();
}

TEST(ZooGolden, CasesAreNamedByModelAndLayerType) {
  const fs::path gemma = fs::path(ROPECHECK_ZOO_DIR) / "gemma-3-1b.json";
  const std::vector<GoldenCase> cases = build_config_suite(read_model_rope_file(gemma.string()), "gemma-3-1b");
  std::set<std::string> names;
  for (const GoldenCase& g : cases) names.insert(g.name);
  // Two layer types (sliding base 1e4, full base 1e6) x three storage dtypes.
  EXPECT_EQ(cases.size(), 6u);
  EXPECT_TRUE(names.count("gemma-3-1b/sliding_attention/bf16")) << *names.begin();
  EXPECT_TRUE(names.count("gemma-3-1b/full_attention/f32"));
  for (const GoldenCase& g : cases) {
    const double base = g.name.find("sliding") != std::string::npos ? 1e4 : 1e6;
    EXPECT_EQ(g.c.freq.base, base) << g.name;  // exact: both are stated integers
    EXPECT_EQ(g.c.shape.head_dim, 256) << g.name;
  }
  // The same cases on every run (the exporter's determinism rests on it).
  const std::vector<GoldenCase> again = build_config_suite(read_model_rope_file(gemma.string()), "gemma-3-1b");
  for (std::size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(cases[i].c.positions, again[i].c.positions);
}

TEST(ZooGolden, EveryFamilysExportPassesTheControlAndKillsItsConfigMutants) {
  int families = 0;
  std::size_t mutants = 0;
  for (const auto& entry : fs::directory_iterator(ROPECHECK_ZOO_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++families;
    const std::string family = entry.path().stem().string();
    const std::string dir = export_family(entry.path());
    const VerifyReport control = verify_golden(dir, {mutant::mutant_impl(mutant::Bug::none)});
    EXPECT_TRUE(control.passed()) << family << ": the control fails its zoo golden vectors";
    EXPECT_GT(control.cases, 0) << family;
    for (const mutant::ConfigBugInfo& b : mutant::config_bugs()) {
      if (family != b.zoo_config) continue;
      ++mutants;
      const VerifyReport r = verify_golden(dir, {mutant::config_mutant_impl(b.bug)});
      EXPECT_FALSE(r.passed()) << b.name << " passes the golden vectors of " << family;
    }
    fs::remove_all(dir);
  }
  EXPECT_GE(families, 9);
  EXPECT_EQ(mutants, mutant::config_bugs().size()) << "a config bug names no zoo family";
}

}  // namespace
}  // namespace ropecheck::golden
