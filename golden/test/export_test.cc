// SPDX-License-Identifier: MIT
// Golden exports: determinism, atomic replacement, tamper detection, and the
// verifier's view of a case (read back from the files) equal to the
// reference's own.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "golden/catalog/catalog.h"
#include "golden/verify/export_files.h"
#include "golden/export/exporter.h"
#include "golden/test/forge.h"
#include "golden/verify/verifier.h"
#include "impls/registry.h"

namespace ropecheck::golden {
namespace {
namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("ropecheck_golden_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  fs::create_directories(p.parent_path());
  return p;
}

void export_to(const fs::path& dir, const std::string& suite, Format f, int threads) {
  ExportOptions o;
  o.suite = suite;
  o.out_dir = dir.string();
  o.format = f;
  o.threads = threads;
  export_golden(o);
}

TEST(GoldenExport, SameBytesWhateverTheThreadCount) {
  for (Format f : {Format::kSafetensors, Format::kNpy, Format::kJson}) {
    const fs::path a = scratch("a"), b = scratch("b");
    export_to(a, "smoke", f, 1);
    export_to(b, "smoke", f, 3);
    int files = 0;
    for (const auto& e : fs::recursive_directory_iterator(a)) {
      if (!e.is_regular_file()) continue;
      ++files;
      EXPECT_EQ(test::slurp(e.path()), test::slurp(b / fs::relative(e.path(), a))) << e.path();
    }
    EXPECT_GT(files, 2) << format_name(f);
  }
}

TEST(GoldenExport, ReplacesAPreviousExportButNothingElse) {
  const fs::path d = scratch("replace");
  export_to(d, "smoke", Format::kJson, 2);
  export_to(d, "smoke", Format::kSafetensors, 2);  // replaces the json export whole
  EXPECT_FALSE(fs::exists(d / "cases" / "0001.json"));
  EXPECT_TRUE(fs::exists(d / "cases" / "0001.safetensors"));
  const fs::path other = scratch("not_an_export");
  fs::create_directories(other);
  std::ofstream(other / "notes.txt") << "mine";
  EXPECT_THROW(export_to(other, "smoke", Format::kSafetensors, 1), std::runtime_error);
  EXPECT_EQ(test::slurp(other / "notes.txt"), "mine");
}

TEST(GoldenExport, TruncatedOrAlteredFilesAreNamed) {
  const fs::path d = scratch("tamper");
  export_to(d, "smoke", Format::kSafetensors, 2);
  const Manifest m = load_manifest(d.string());
  const fs::path victim = d / "cases" / "0003.safetensors";
  const std::string good = test::slurp(victim);
  auto error_of = [&] {
    try {
      load_case(d.string(), m, m.cases[2]);
    } catch (const FormatError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::ofstream(victim, std::ios::binary | std::ios::trunc) << good.substr(0, good.size() / 2);
  EXPECT_NE(error_of().find("0003.safetensors: bytes:"), std::string::npos) << error_of();
  EXPECT_NE(error_of().find("truncated"), std::string::npos) << error_of();
  std::string flipped = good;
  flipped[flipped.size() - 5] ^= 1;
  std::ofstream(victim, std::ios::binary | std::ios::trunc) << flipped;
  EXPECT_NE(error_of().find("0003.safetensors: sha256: does not match"), std::string::npos) << error_of();
  std::string manifest = test::slurp(d / "manifest.json");
  manifest[manifest.find("\"tokens\": 4")] = ' ';
  std::ofstream(d / "manifest.json", std::ios::binary | std::ios::trunc) << manifest;
  try {
    load_manifest(d.string());
    FAIL() << "accepted an altered manifest";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("manifest.json: sha256"), std::string::npos) << e.what();
  }
}

// What the verifier rebuilds from the files equals what the reference
// computes, bit for bit: the files carry everything the judge needs.
TEST(GoldenExport, CasesReadBackEqualTheReference) {
  const fs::path d = scratch("readback");
  for (Format f : {Format::kSafetensors, Format::kNpy, Format::kJson}) {
    export_to(d, "smoke", f, 2);
    const Manifest m = load_manifest(d.string());
    const auto suite = build_golden_suite("smoke");
    ASSERT_EQ(m.cases.size(), suite.size());
    for (std::size_t k = 0; k < suite.size(); ++k) {
      const LoadedCase L = load_case(d.string(), m, m.cases[k]);
      const QkBuffers in = make_inputs(suite[k].c);
      const ReferenceResult r = compute_reference(suite[k].c, in);
      EXPECT_EQ(L.in.bytes, in.bytes) << suite[k].name;
      EXPECT_EQ(L.c.positions, suite[k].c.positions);
      EXPECT_EQ(std::memcmp(&L.ref.attention_factor, &r.attention_factor, 8), 0);
      for (int w = 0; w < 2; ++w) {
        ASSERT_EQ(L.ref.elements(w).size(), r.elements(w).size());
        // Order may differ (the reference walks pairs, the reader too): match by offset.
        std::map<std::int64_t, ReferenceElement> by_offset;
        for (const ReferenceElement& e : r.elements(w)) by_offset[e.offset] = e;
        for (const ReferenceElement& e : L.ref.elements(w)) {
          const ReferenceElement& x = by_offset.at(e.offset);
          const double got[] = {e.rounded, e.terms.x, e.terms.y, e.terms.value, e.terms.partner,
                                e.terms.cos_a, e.terms.sin_a, e.terms.abs_angle};
          const double want[] = {x.rounded, x.terms.x, x.terms.y, x.terms.value, x.terms.partner,
                                 x.terms.cos_a, x.terms.sin_a, x.terms.abs_angle};
          EXPECT_EQ(std::memcmp(got, want, sizeof got), 0) << suite[k].name << " offset " << e.offset;
          EXPECT_EQ(e.terms.position, x.terms.position);
          EXPECT_EQ(e.terms.pair, x.terms.pair);
          EXPECT_EQ(e.terms.freq_group, x.terms.freq_group);
          EXPECT_EQ(e.terms.side, x.terms.side);
          EXPECT_EQ(e.channel, x.channel);
        }
      }
    }
  }
}

TEST(GoldenExport, EveryFlagIsExercisedBySomeSuite) {
  std::set<std::string> seen;
  for (const auto& s : golden_suite_names())
    for (const GoldenCase& g : build_golden_suite(s)) {
      for (const auto& f : derive_flags(g.c, make_inputs(g.c))) seen.insert(f);
      for (const auto& f : g.extra_flags) seen.insert(f);
    }
  for (const FlagInfo& f : flag_catalog()) EXPECT_TRUE(seen.count(f.name)) << f.name << " is never exercised";
  EXPECT_THROW(build_golden_suite("tiny"), std::invalid_argument);
}

TEST(GoldenExport, BuiltinImplementationsPassTheSmokeSuite) {
  const fs::path d = scratch("verify");
  export_to(d, "smoke", Format::kSafetensors, 2);
  std::vector<const ropecheck_impl_t*> impls(builtin_impls().begin(), builtin_impls().end());
  const VerifyReport r = verify_golden(d.string(), impls);
  EXPECT_TRUE(r.passed());
  for (const ImplVerdicts& v : r.impls) {
    EXPECT_EQ(v.count(Outcome::kFail), 0) << v.impl;
    EXPECT_GT(v.count(Outcome::kPass), 4) << v.impl;  // scalar_complex: interleaved only
  }
}

}  // namespace
}  // namespace ropecheck::golden
