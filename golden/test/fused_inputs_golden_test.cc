// SPDX-License-Identifier: MIT
// The fused suite's qk-norm and caller's cos/sin cache cases (issue #32,
// manifest schema 5): what they cover; the fused qk-norm kernels pass every
// qk-norm case under what they declare and scalar_caller_cache every case
// with the caller's cache (reading the case's cache), while a plain kernel
// is skipped on the norm and judged on q and k beside the cache; the
// qk-norm and cos/sin-cache rows of the catalogue leave invalid outputs
// only where the case has what they get wrong, and fail golden verify
// (the in-place downcast by writing into the caller's cache); a version 4
// export still reads, a version 4 manifest with a qk-norm and a version 6
// are refused naming the version, and a cache's rows or a norm's eps
// altered is refused naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "golden/catalog/catalog.h"
#include "golden/verify/export_files.h"
#include "golden/export/exporter.h"
#include "golden/test/catalogue_export.h"
#include "golden/test/forge.h"
#include "golden/verify/verifier.h"
#include "impls/scalar/scalar_impls.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck::golden {
namespace {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

const fs::path& fused_inputs_export() { return test::catalogue_export("fused"); }

bool carries_flag(const CaseEntry& e, const std::string& f) {
  return std::count(e.flags.begin(), e.flags.end(), f) > 0;
}

TEST(GoldenFusedInputs, TheSuiteCoversTheNormsAndCachesIssue32Asks) {
  const Manifest m = load_manifest(fused_inputs_export().string());
  EXPECT_EQ(m.schema_version, 5);
  std::set<std::string> norms, caches, flags;
  for (const CaseEntry& e : m.cases) {
    flags.insert(e.flags.begin(), e.flags.end());
    EXPECT_LE(int(e.kv_write.has_value()) + int(e.qk_norm.has_value()) + int(e.cos_sin_cache.has_value()), 1)
        << "case " << e.id;
    if (e.qk_norm) {
      EXPECT_TRUE(carries_flag(e, "QkNorm"));
      norms.insert(std::to_string(e.qk_norm->norm.form) + "/" + std::to_string(e.qk_norm->intermediate));
      norms.insert("dtype " + std::string(dtype_name(e.dtype)));
      if (e.config.shape.rotary_dim < e.config.shape.head_dim) norms.insert("partial");
    }
    if (e.cos_sin_cache) {
      EXPECT_TRUE(carries_flag(e, "CallerCosSinCache"));
      caches.insert(e.cos_sin_cache->dtype == ROPECHECK_DTYPE_F32 ? "f32 cache" : "activation-dtype cache");
      caches.insert(std::string(layout_name(*e.config.layout)));
    }
  }
  // w and 1 + w; fp32 kept, rounded before and after the weight; bf16 and
  // f32; partial rotary.
  for (const char* want : {"0/0", "0/1", "1/2", "1/0", "dtype bf16", "dtype f32", "partial"})
    EXPECT_TRUE(norms.count(want)) << want;
  for (const char* want : {"f32 cache", "activation-dtype cache", "half_split", "interleaved"})
    EXPECT_TRUE(caches.count(want)) << want;
  for (const FlagInfo& f : fused_input_flag_catalog()) EXPECT_TRUE(flags.count(f.name)) << f.name << " on no case";
}

// The three qk-norm kernels (vLLM's fp32, transformers' Qwen3 and Gemma 3
// roundings) are judged under their own norm policies on every qk-norm
// case; scalar_caller_cache reads every case's cache; a plain kernel is
// skipped on a norm and judged on q and k beside a cache.
TEST(GoldenFusedInputs, TheFusedKernelsPassWhereTheyDeclareTheNormOrReadTheCache) {
  const VerifyReport r = verify_golden(
      fused_inputs_export().string(),
      {impl::scalar_fused_qk_norm_vllm_impl(), impl::scalar_fused_qk_norm_qwen3_impl(),
       impl::scalar_fused_qk_norm_gemma_impl(), impl::scalar_caller_cache_impl(), mutant::mutant_impl(mutant::Bug::none)});
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.qk_norm_cases, 5);
  EXPECT_EQ(r.caller_cache_cases, 4);
  for (const ImplVerdicts& v : r.impls)
    for (const CaseVerdict& c : v.cases) {
      EXPECT_NE(c.outcome.outcome, Outcome::kFail) << v.impl << " case " << c.id << ": " << c.outcome.message;
      const bool norm = std::count(c.flags.begin(), c.flags.end(), "QkNorm") > 0;
      const bool cache = std::count(c.flags.begin(), c.flags.end(), "CallerCosSinCache") > 0;
      const bool norm_kernel = v.impl.find("qk_norm") != std::string::npos;
      if (norm) {
        EXPECT_EQ(c.outcome.outcome, norm_kernel ? Outcome::kPass : Outcome::kSkipped) << v.impl << " case " << c.id;
      }
      if (cache) {
        EXPECT_EQ(c.outcome.outcome, Outcome::kPass) << v.impl << " case " << c.id;
      }
    }
}

TEST(GoldenFusedInputs, TheRowsLeaveInvalidOutputsOnlyWhereTheCaseHasWhatTheyGetWrong) {
  const Manifest m = load_manifest(fused_inputs_export().string());
  std::map<std::string, int> per_mutant;
  for (const CaseEntry& e : m.cases)
    for (const OutputEntry& o : e.outputs) {
      const bool norm_row = o.mutant.rfind("mutant_qk_norm_", 0) == 0;
      const bool cache_row = o.mutant.rfind("mutant_cos_sin_cache_", 0) == 0;
      if (!norm_row && !cache_row) continue;
      ++per_mutant[o.mutant];
      EXPECT_EQ(norm_row, e.qk_norm.has_value()) << o.mutant << " on case " << e.id;
      EXPECT_EQ(cache_row, e.cos_sin_cache.has_value()) << o.mutant << " on case " << e.id;
      if (o.mutant == "mutant_qk_norm_statistic_over_rotary") {
        EXPECT_LT(e.config.shape.rotary_dim, e.config.shape.head_dim) << e.id;
      }
      if (o.mutant == "mutant_qk_norm_layout_hard_coded") {
        EXPECT_EQ(*e.config.layout, ROPECHECK_LAYOUT_INTERLEAVED);
      }
      // The downcast is what a policy with bf16/fp16 cos/sin computes: acceptable there, and
      // only where an fp32 cache meets narrower activations; a bf16 intermediate is what
      // the bf16-arithmetic policies admit on a bf16 case. Every other output is invalid.
      if (o.mutant == "mutant_cos_sin_cache_downcast") {
        EXPECT_EQ(e.cos_sin_cache->dtype, ROPECHECK_DTYPE_F32);
        EXPECT_NE(e.dtype, ROPECHECK_DTYPE_F32);
        EXPECT_EQ(o.result, OutputResult::kAcceptable);
      } else if (o.mutant != "mutant_qk_norm_intermediate_in_bf16" || e.dtype != ROPECHECK_DTYPE_BF16) {
        EXPECT_EQ(o.result, OutputResult::kInvalid) << o.mutant << " on case " << e.id;
      }
      EXPECT_EQ(std::count(o.allowed_by.begin(), o.allowed_by.end(), "exact_f64"), 0) << o.mutant;
    }
  for (const char* row : {"mutant_qk_norm_after_rotation", "mutant_qk_norm_weight_form_swapped",
                          "mutant_qk_norm_eps_dropped", "mutant_qk_norm_statistic_over_rotary",
                          "mutant_qk_norm_intermediate_in_bf16", "mutant_qk_norm_layout_hard_coded",
                          "mutant_qk_norm_q_weight_for_k", "mutant_cos_sin_cache_downcast",
                          "mutant_cos_sin_cache_halves_swapped", "mutant_cos_sin_cache_row_of_token"})
    EXPECT_GT(per_mutant[row], 0) << row << " shows on no case";
  // The in-place downcast writes into the caller's cache: a misbehaving call
  // stores no output; golden verify fails it (below).
  EXPECT_EQ(per_mutant["mutant_cos_sin_cache_downcast_in_place"], 0);
}

TEST(GoldenFusedInputs, TheNormAndCacheRowsFailGoldenVerify) {
  for (const mutant::Bug bug : {mutant::Bug::qk_norm_eps_dropped, mutant::Bug::qk_norm_after_rotation,
                                mutant::Bug::cos_sin_cache_halves_swapped, mutant::Bug::cos_sin_cache_downcast_in_place}) {
    const VerifyReport r = verify_golden(fused_inputs_export().string(), {mutant::mutant_impl(bug)});
    EXPECT_FALSE(r.passed()) << r.impls[0].impl;
    std::string messages;
    for (const CaseVerdict& c : r.impls[0].cases)
      if (c.outcome.outcome == Outcome::kFail) messages += c.outcome.message + "\n";
    EXPECT_FALSE(messages.empty()) << r.impls[0].impl;
    if (bug == mutant::Bug::cos_sin_cache_downcast_in_place) {
      EXPECT_NE(messages.find("wrote into its input cos_sin_cache"), std::string::npos) << messages;
    }
  }
}

// A version 4 export (KV-cache writes alone) reads as before; a version 4
// manifest with a qk-norm, a version 6 one, a cache's rows and a norm's
// eps altered are refused by name (checksums recomputed).
TEST(GoldenFusedInputs, OlderManifestsReadAndAlteredOnesAreRefusedNamingTheField) {
  const fs::path d = test::copy_of(fused_inputs_export(), "fused-inputs-forged");
  const ordered_json orig = ordered_json::parse(test::slurp(d / "manifest.json"));
  int norm = -1, cache = -1;
  for (std::size_t i = 0; i < orig["cases"].size(); ++i) {
    if (norm < 0 && orig["cases"][i].contains("qkNorm")) norm = static_cast<int>(i);
    if (cache < 0 && orig["cases"][i].contains("cosSinCache")) cache = static_cast<int>(i);
  }
  ASSERT_GE(norm, 0);
  ASSERT_GE(cache, 0);

  ordered_json m = orig;
  ordered_json kept = ordered_json::array();
  for (const auto& c : m["cases"])
    if (!c.contains("qkNorm") && !c.contains("cosSinCache")) kept.push_back(c);
  m["cases"] = kept;
  m["numberOfCases"] = kept.size();
  m["schema"] = "ropecheck_golden_manifest_v4.schema.json";
  m["schemaVersion"] = 4;
  test::forge_manifest(d, m.dump(1));
  EXPECT_EQ(test::refusal(d), "");
  EXPECT_TRUE(verify_golden(d.string(), {impl::scalar_fused_kv_vllm_impl(), impl::scalar_fused_kv_flashinfer_impl()})
                  .passed());

  m = orig;
  m["schema"] = "ropecheck_golden_manifest_v4.schema.json";
  m["schemaVersion"] = 4;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(test::refusal(d).find("qkNorm: a qk-norm needs schemaVersion 5 (this manifest states 4)"),
            std::string::npos)
      << test::refusal(d);

  m = orig;
  m["schema"] = "ropecheck_golden_manifest_v6.schema.json";
  m["schemaVersion"] = 6;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(test::refusal(d).find("schemaVersion: is 6; this ropecheck reads versions 1 to 5"), std::string::npos)
      << test::refusal(d);

  m = orig;
  m["cases"][static_cast<std::size_t>(cache)]["cosSinCache"]["rows"] =
      m["cases"][static_cast<std::size_t>(cache)]["cosSinCache"]["rows"].get<int>() + 1;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(test::refusal(d).find("cosSinCache.rows: is "), std::string::npos) << test::refusal(d);

  // A cache too large to rebuild (positions to 2^24 - 1), refused before it is built.
  m = orig;
  m["cases"][static_cast<std::size_t>(cache)]["cosSinCache"]["rows"] = 1 << 24;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(test::refusal(d).find("cosSinCache.rows: is 16777216: rows * rotary_dim must be at most"),
            std::string::npos)
      << test::refusal(d);

  // A qk-norm case too large to normalise exactly element by element.
  m = orig;
  m["cases"][static_cast<std::size_t>(norm)]["tokens"] = 1 << 20;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(test::refusal(d).find("].qkNorm: a qk-norm case of "), std::string::npos) << test::refusal(d);

  m = orig;
  m["cases"][static_cast<std::size_t>(norm)]["qkNorm"]["epsHex"] = "0x1p-10";
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(test::refusal(d).find("where the reference gives"), std::string::npos) << test::refusal(d);
}

}  // namespace
}  // namespace ropecheck::golden
