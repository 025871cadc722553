// SPDX-License-Identifier: MIT
// Golden outputs other than the exact one (issue #36, manifest schema 3):
// every row of the bug catalogue has a bug class, its published bug quoted
// from the catalogue; the smoke export stores the mutants' outputs the
// judge fails, each invalid under every policy's budget or acceptable where
// a declared policy allows it (HF eager's bf16 arithmetic under hf_eager),
// and none where a mutant does not touch the case; the verifier refuses an
// output that is not what the manifest says; older manifests are read, a
// newer one is refused naming the versions known (fused cases, schema 4:
// fused_golden_test.cc).
#include <gtest/gtest.h>


#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "golden/catalog/bug_classes.h"
#include "golden/catalog/catalog.h"
#include "golden/verify/export_files.h"
#include "golden/export/exporter.h"
#include "golden/test/catalogue_export.h"
#include "golden/test/forge.h"
#include "golden/verify/verifier.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck::golden {
namespace {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

const fs::path& smoke() { return test::catalogue_export("smoke"); }
fs::path copy_of_smoke(const std::string& name) { return test::copy_of(smoke(), name); }
using test::refusal;

TEST(GoldenOutputs, EveryCatalogueRowHasABugClassAndQuotesItsPublishedBug) {
  std::set<std::string> classes;
  for (const BugClassInfo& c : bug_class_catalog()) classes.insert(c.name);
  std::set<std::string> used;
  for (const mutant::BugInfo& b : mutant::kBugs) {
    if (b.bug == mutant::Bug::none) {
      EXPECT_STREQ(b.bug_class, "") << "the control shows no bug";
      continue;
    }
    EXPECT_TRUE(classes.count(b.bug_class)) << b.name << ": unknown class '" << b.bug_class << "'";
    used.insert(b.bug_class);
    EXPECT_NE(std::string(b.description).find(b.published_bug), std::string::npos)
        << b.name << ": '" << b.published_bug << "' is not what the catalogue row cites";
  }
  EXPECT_EQ(used, classes) << "golden/catalog/bug_classes.cc defines a class no catalogue row has";
}

TEST(GoldenOutputs, TheSmokeExportShowsEveryClassItCanAndEachOutputIsWhatItSays) {
  const Manifest m = load_manifest(smoke().string());
  EXPECT_EQ(m.schema_version, 3);
  std::map<std::string, int> per_class;
  std::map<std::pair<std::string, OutputResult>, int> per_class_result;
  bool hf_eager_acceptable = false;
  for (const CaseEntry& e : m.cases) {
    std::set<std::pair<std::string, OutputResult>> seen;
    for (const OutputEntry& o : e.outputs) {
      EXPECT_TRUE(seen.insert({o.bug_class, o.result}).second) << "case " << e.id << " repeats " << o.bug_class;
      ++per_class_result[{o.bug_class, o.result}];
      ++per_class[o.bug_class];
      // A bug of a scheme or of multi-axis positions only shows where the
      // case has them: elsewhere the mutant does not touch the case.
      const auto has = [&](const char* f) { return std::count(e.flags.begin(), e.flags.end(), std::string(f)) > 0; };
      if (o.mutant.rfind("mutant_yarn_", 0) == 0) {
        EXPECT_TRUE(has("SchemeYaRN")) << o.mutant << " on case " << e.id;
      }
      if (o.bug_class == "MultiAxis") {
        EXPECT_TRUE(has("MultiAxis")) << o.mutant << " on case " << e.id;
      }
      if (o.result == OutputResult::kInvalid) {
        EXPECT_TRUE(o.allowed_by.empty());
      }
      for (const auto& [policy, units] : o.worst_units) {
        const bool allowed = std::count(o.allowed_by.begin(), o.allowed_by.end(), policy) > 0;
        EXPECT_EQ(allowed, units <= 1.0) << "case " << e.id << " " << o.mutant << " " << policy;
      }
      // HF eager in bf16 against the fp32 budget: rejected by fp32 math,
      // allowed by the policy that describes it.
      if (o.mutant == "mutant_hf_eager_math_declared_f32") {
        const auto allows = [&](const char* p) { return std::count(o.allowed_by.begin(), o.allowed_by.end(), std::string(p)) > 0; };
        hf_eager_acceptable |= o.result == OutputResult::kAcceptable && allows("hf_eager") && !allows("f32_angle_product");
      }
    }
  }
  EXPECT_TRUE(hf_eager_acceptable);
  // The classes a golden case (one sequence, in place, no cache write or
  // qk-norm) can show; the smoke suite shows each.
  for (const char* c : {"Pairing", "Direction", "FrequencyFormula", "ScalingFormula", "AttentionFactor", "Unrotated",
                        "AnglePrecision", "TrigPrecision", "RotationRounding", "Positions", "MultiAxis"})
    EXPECT_GT(per_class[c], 0) << c;
  // Precision bugs both ways: rejected by every policy, and allowed by the
  // looser policies that declare that arithmetic.
  for (const char* c : {"AnglePrecision", "TrigPrecision"})
    for (OutputResult r : {OutputResult::kInvalid, OutputResult::kAcceptable})
      EXPECT_GT((per_class_result[{c, r}]), 0) << c << " " << output_result_name(r);
  // The verifier checked every output against every budget.
  const VerifyReport r = verify_golden(smoke().string(), {mutant::mutant_impl(mutant::Bug::none)});
  EXPECT_TRUE(r.passed());
  EXPECT_GT(r.invalid_outputs, 100);
  EXPECT_GT(r.acceptable_outputs, 10);
}

// An output changed into a correct one (its tensor set to the expected
// bits), or its stated worst error changed, is refused by name even with
// matching checksums.
TEST(GoldenOutputs, AnOutputThatIsNotWhatTheManifestSaysIsRefused) {
  const fs::path d = copy_of_smoke("forged");
  ordered_json m = ordered_json::parse(test::slurp(d / "manifest.json"));
  ordered_json& out = m["cases"][0]["outputs"][0];
  ASSERT_EQ(out["result"], "invalid");
  out["q"] = "q_expected";
  out["k"] = "k_expected";
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(refusal(d).find("output 0 (" + out["mutant"].get<std::string>() + "): meets the budget of policy exact_f64, "
                            "where the manifest marks it invalid"),
            std::string::npos)
      << refusal(d);

  m = ordered_json::parse(test::slurp(smoke() / "manifest.json"));
  ordered_json& units = m["cases"][0]["outputs"][0]["worstUnits"]["cuda_f32"];
  units = units.get<double>() * 2;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(refusal(d).find("worstUnits.cuda_f32: is "), std::string::npos) << refusal(d);

  m = ordered_json::parse(test::slurp(smoke() / "manifest.json"));
  m["cases"][0]["outputs"][0]["allowedBy"] = {"cuda_f32"};
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(refusal(d).find("allowedBy: must be empty for an invalid output"), std::string::npos) << refusal(d);
}

// Versions: a version 2 manifest (no outputs) is read; one that carries
// outputs is refused naming the version, and so is a version 3 case
// without them and a version this reader does not know.
TEST(GoldenOutputs, OlderManifestsAreReadANewerOneIsRefusedNamingTheVersions) {
  const fs::path d = copy_of_smoke("versions");
  const ordered_json v3 = ordered_json::parse(test::slurp(d / "manifest.json"));
  ordered_json v2 = v3;
  v2["schema"] = "ropecheck_golden_manifest_v2.schema.json";
  v2["schemaVersion"] = 2;
  v2.erase("bugClasses");
  for (auto& c : v2["cases"]) c.erase("outputs");
  test::forge_manifest(d, v2.dump(1));
  EXPECT_EQ(refusal(d), "");
  EXPECT_EQ(load_manifest(d.string()).schema_version, 2);

  v2["cases"][0]["outputs"] = v3["cases"][0]["outputs"];
  test::forge_manifest(d, v2.dump(1));
  EXPECT_NE(refusal(d).find("cases[0].outputs: outputs other than the exact one need schemaVersion 3 (this manifest "
                            "states 2)"),
            std::string::npos)
      << refusal(d);

  ordered_json bare = v3;
  bare["cases"][1].erase("outputs");
  test::forge_manifest(d, bare.dump(1));
  EXPECT_NE(refusal(d).find("cases[1].outputs: missing"), std::string::npos) << refusal(d);

  // Version 4 (fused cases) reads a version 3 export's content as it is.
  ordered_json v4 = v3;
  v4["schema"] = "ropecheck_golden_manifest_v4.schema.json";
  v4["schemaVersion"] = 4;
  test::forge_manifest(d, v4.dump(1));
  EXPECT_EQ(refusal(d), "");

  // Version 5 (a qk-norm, the caller's cos/sin cache) too.
  ordered_json v5 = v3;
  v5["schema"] = "ropecheck_golden_manifest_v5.schema.json";
  v5["schemaVersion"] = 5;
  test::forge_manifest(d, v5.dump(1));
  EXPECT_EQ(refusal(d), "");

  ordered_json v6 = v3;
  v6["schema"] = "ropecheck_golden_manifest_v6.schema.json";
  v6["schemaVersion"] = 6;
  test::forge_manifest(d, v6.dump(1));
  EXPECT_NE(refusal(d).find("schemaVersion: is 6; this ropecheck reads versions 1 to 5"), std::string::npos)
      << refusal(d);
}

}  // namespace
}  // namespace ropecheck::golden
