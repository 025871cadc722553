// SPDX-License-Identifier: MIT
// Golden vectors of multi-axis RoPE (issue #20): the published configs of
// axis_suites.cc are in the suites with their values; an export writes their
// positions per axis and each pair's axis, and reads them back into the
// same case; the catalogue's control passes them and every multi-axis
// mutant is killed by them, on its multi-axis cases only; an export written
// before multi-axis cases (manifest schema 1) is read as before.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "golden/verify/export_files.h"
#include "golden/export/exporter.h"
#include "golden/suites/suites.h"
#include "golden/test/forge.h"
#include "golden/verify/verifier.h"
#include "impls/registry.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck::golden {
namespace {
namespace fs = std::filesystem;

// Removed when the test binary exits.
const fs::path& axes_root() {
  static const fs::path r = fs::temp_directory_path() / ("ropecheck_axes_golden_" + std::to_string(::getpid()));
  static const struct Cleanup {
    ~Cleanup() { fs::remove_all(r); }
  } cleanup;
  return r;
}

fs::path export_smoke(const std::string& name) {
  const fs::path d = axes_root() / name;
  fs::remove_all(d);
  fs::create_directories(axes_root());
  ExportOptions o;
  o.suite = "smoke";
  o.out_dir = d.string();
  o.threads = 1;
  export_golden(o);
  return d;
}

const GoldenCase* find_case(const std::vector<GoldenCase>& suite, const std::string& prefix) {
  for (const GoldenCase& g : suite)
    if (g.name.rfind(prefix, 0) == 0) return &g;
  return nullptr;
}

// The values each model publishes (sources: golden/suites/axis_suites.cc), in both
// suites that carry them.
TEST(AxesGolden, TheModelsAreInTheSuitesWithTheirPublishedValues) {
  for (const std::string suite : {"smoke", "standard"}) {
    const std::vector<GoldenCase> cases = build_golden_suite(suite);
    const GoldenCase* q2 = find_case(cases, "qwen2-vl/mrope/");
    const GoldenCase* q3 = find_case(cases, "qwen3-vl/mrope-interleaved/");
    const GoldenCase* vit = find_case(cases, "vit-2d/axial/");
    const GoldenCase* flux = find_case(cases, "flux/axes-3d/");
    ASSERT_TRUE(q2 && q3 && vit && flux) << suite;
    using Sections = std::vector<std::int32_t>;
    EXPECT_EQ(q2->c.axes.sections, (Sections{16, 24, 24}));
    EXPECT_EQ(q2->c.axes.assignment, ROPECHECK_AXES_SECTIONS);
    EXPECT_EQ(q2->c.axes.frequencies, ROPECHECK_AXIS_FREQ_SHARED);
    EXPECT_EQ(q2->c.freq.base, 1e6);  // exact: a stated integer
    EXPECT_EQ(q3->c.axes.sections, (Sections{24, 20, 20}));
    EXPECT_EQ(q3->c.axes.assignment, ROPECHECK_AXES_INTERLEAVED);
    EXPECT_EQ(q3->c.freq.base, 5e6);
    EXPECT_EQ(vit->c.axes.sections, (Sections{20, 20}));
    EXPECT_EQ(vit->c.axes.frequencies, ROPECHECK_AXIS_FREQ_PER_AXIS);
    EXPECT_EQ(vit->c.shape.head_dim, 80);
    EXPECT_EQ(flux->c.axes.sections, (Sections{8, 28, 28}));
    EXPECT_EQ(flux->c.axes.frequencies, ROPECHECK_AXIS_FREQ_PER_AXIS);
    EXPECT_EQ(flux->c.layout, ROPECHECK_LAYOUT_INTERLEAVED);
    for (const GoldenCase* g : {q2, q3, flux}) EXPECT_EQ(g->c.shape.rotary_dim, 128) << g->name;
    for (const GoldenCase* g : {q2, q3, vit}) EXPECT_EQ(g->c.layout, ROPECHECK_LAYOUT_HALF_SPLIT) << g->name;
    for (const GoldenCase* g : {q2, q3, vit, flux}) EXPECT_EQ(g->c.freq.scheme, ROPECHECK_SCHEME_DEFAULT);
    // M-RoPE cases mix text tokens (every axis equal) and image tokens (t
    // constant, h or w not): both kinds are there.
    bool text = false, image = false;
    for (std::int64_t t = 0; t < q2->c.tokens; ++t) {
      const bool same = q2->c.position(t, 0) == q2->c.position(t, 1) && q2->c.position(t, 1) == q2->c.position(t, 2);
      (same ? text : image) = true;
    }
    EXPECT_TRUE(text && image) << suite;
  }
  // Both storage widths: f32, and bf16 or f16, in every suite together.
  std::set<ropecheck_dtype_t> dtypes;
  for (const GoldenCase& g : build_golden_suite("standard"))
    if (g.c.axes.multi()) dtypes.insert(g.c.dtype);
  EXPECT_TRUE(dtypes.count(ROPECHECK_DTYPE_F32) && dtypes.count(ROPECHECK_DTYPE_BF16));
}

// positions [num_axes, tokens] axis-major, pair_axis the assignment's, and
// the case read back equal to the suite's (the token-major Case).
TEST(AxesGolden, AnExportWritesPositionsPerAxisAndReadsTheCaseBack) {
  const fs::path d = export_smoke("roundtrip");
  const Manifest m = load_manifest(d.string());
  EXPECT_EQ(m.schema_version, kPlainManifestSchemaVersion);  // no fused case: version 3
  const std::vector<GoldenCase> suite = build_golden_suite("smoke");
  ASSERT_EQ(m.cases.size(), suite.size());
  int multi = 0;
  for (std::size_t k = 0; k < suite.size(); ++k) {
    const Case& c = suite[k].c;
    EXPECT_EQ(m.cases[k].axes, c.axes) << suite[k].name;
    const std::vector<Tensor> ts = load_case_tensors(d.string(), m, m.cases[k]);
    std::map<std::string, const Tensor*> by_name;
    for (const Tensor& t : ts) by_name[t.name] = &t;
    const Tensor& pos = *by_name.at("positions");
    if (!c.axes.multi()) {
      EXPECT_EQ(pos.shape, (std::vector<std::int64_t>{c.tokens})) << suite[k].name;
      EXPECT_FALSE(by_name.count("pair_axis")) << suite[k].name;
      continue;
    }
    ++multi;
    ASSERT_EQ(pos.shape, (std::vector<std::int64_t>{c.axes.num_axes, c.tokens})) << suite[k].name;
    for (int a = 0; a < c.axes.num_axes; ++a)
      for (std::int64_t t = 0; t < c.tokens; ++t)
        EXPECT_EQ(pos.int_value(a * c.tokens + t), c.position(t, a)) << suite[k].name << " axis " << a << " token " << t;
    const Tensor& pa = *by_name.at("pair_axis");
    const ref::PairAxes want = ref::pair_axes(c.axes, c.shape.rotary_dim);
    ASSERT_EQ(pa.shape, (std::vector<std::int64_t>{c.shape.rotary_dim / 2}));
    for (int i = 0; i < c.shape.rotary_dim / 2; ++i)
      EXPECT_EQ(pa.int_value(i), want.axis[static_cast<std::size_t>(i)]) << suite[k].name << " pair " << i;
    const LoadedCase L = load_case(d.string(), m, m.cases[k]);
    EXPECT_EQ(L.c.axes, c.axes);
    EXPECT_EQ(L.c.positions, c.positions) << suite[k].name;
    EXPECT_TRUE(std::count(m.cases[k].flags.begin(), m.cases[k].flags.end(), "MultiAxis")) << suite[k].name;
  }
  EXPECT_EQ(multi, 4);
}

// The control passes the multi-axis cases, and each multi-axis bug of the
// catalogue fails golden verify on them and nowhere else: every failing
// case is flagged MultiAxis (its 1D calls are the control's).
TEST(AxesGolden, TheControlPassesAndMultiAxisMutantsAreKilled) {
  const fs::path d = export_smoke("mutants");
  const VerifyReport control = verify_golden(d.string(), {mutant::mutant_impl(mutant::Bug::none)});
  EXPECT_TRUE(control.passed());
  int judged_multi = 0;
  for (const CaseVerdict& v : control.impls[0].cases)
    judged_multi += v.outcome.outcome == Outcome::kPass &&
                    std::count(v.flags.begin(), v.flags.end(), std::string("MultiAxis"));
  EXPECT_EQ(judged_multi, 4);
  for (const mutant::Bug bug : {mutant::Bug::mrope_temporal_only, mutant::Bug::mrope_sections_reversed,
                                mutant::Bug::mrope_interleaved_as_sections, mutant::Bug::axis_frequencies_shared,
                                mutant::Bug::mrope_layout_hard_coded}) {
    const ropecheck_impl_t* impl = mutant::mutant_impl(bug);
    const VerifyReport r = verify_golden(d.string(), {impl});
    EXPECT_FALSE(r.passed()) << impl->name << " passes the multi-axis golden vectors";
    for (const CaseVerdict& v : r.impls[0].cases) {
      if (v.outcome.outcome != Outcome::kFail) continue;
      EXPECT_TRUE(std::count(v.flags.begin(), v.flags.end(), std::string("MultiAxis")))
          << impl->name << " fails 1D case " << v.name;
    }
  }
}

// A version 1 export (written before multi-axis cases: no axes, positions
// [tokens]) is read and verified as before; written back, it is version 1
// still. A version 1 manifest cannot carry axes.
TEST(AxesGolden, AVersion1ExportIsReadAsBefore) {
  const fs::path d = export_smoke("v1");
  nlohmann::ordered_json m = nlohmann::ordered_json::parse(test::slurp(d / "manifest.json"));
  nlohmann::ordered_json one_d = nlohmann::ordered_json::array(), multi = m["cases"];
  m.erase("bugClasses");
  for (auto& c : m["cases"]) c.erase("outputs");  // schema 3's
  multi = m["cases"];
  for (const auto& c : m["cases"])
    if (!c.contains("axes")) one_d.push_back(c);
  ASSERT_LT(one_d.size(), m["cases"].size());
  m["schema"] = "ropecheck_golden_manifest_v1.schema.json";
  m["schemaVersion"] = 1;
  m["cases"] = one_d;
  m["numberOfCases"] = one_d.size();
  test::forge_manifest(d, m.dump(1));
  const Manifest v1 = load_manifest(d.string());
  EXPECT_EQ(v1.schema_version, 1);
  EXPECT_EQ(nlohmann::json::parse(manifest_to_json(v1))["schemaVersion"], 1);
  const VerifyReport r = verify_golden(d.string(), {builtin_impls().front()});
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.cases, static_cast<int>(one_d.size()));

  m["cases"] = multi;
  m["numberOfCases"] = multi.size();
  test::forge_manifest(d, m.dump(1));
  try {
    load_manifest(d.string());
    FAIL() << "a version 1 manifest carried axes";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("].axes: multi-axis cases need schemaVersion 2"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ropecheck::golden
