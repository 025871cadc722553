// SPDX-License-Identifier: MIT
// Fused golden vectors (issue #32, manifest schema 4): the fused suite's
// cases each carry a KV-cache write covering the cache dtypes, kinds,
// layouts, block sizes, padding slots, scale kinds and directions; the
// exactly rounded caches meet every policy's admissible codes; the fused
// kernels pass `golden verify` where they declare the write (vLLM's divide,
// FlashInfer's multiply) and a plain kernel is judged on q and k; the
// catalogue's fused rows leave invalid outputs only where they change the
// case (each row somewhere), and one fails verify; an altered write, cache
// or output is refused naming it; a version 3 manifest may not carry a
// write.
#include <gtest/gtest.h>


#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

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

const fs::path& fused() { return test::catalogue_export("fused"); }
fs::path copy_of_fused(const std::string& name) { return test::copy_of(fused(), name); }
using test::refusal;

bool has_flag(const CaseEntry& e, const std::string& f) { return std::count(e.flags.begin(), e.flags.end(), f) > 0; }

TEST(GoldenFused, EveryCaseCarriesAWriteAndTheSuiteCoversWhatIssue32Asks) {
  const Manifest m = load_manifest(fused().string());
  EXPECT_EQ(m.schema_version, 5) << "the suite's qk-norm and caller's cache cases (fused_inputs_golden_test.cc)";
  EXPECT_GE(m.cases.size(), 20u);
  EXPECT_LE(m.cases.size(), 40u);
  std::set<int> dtypes, kinds, blocks;
  std::set<std::string> flags;
  int writes = 0;
  for (const CaseEntry& e : m.cases) {
    if (!e.kv_write) {
      EXPECT_TRUE(e.qk_norm || e.cos_sin_cache) << "case " << e.id << " has no fused part";
      continue;
    }
    ++writes;
    dtypes.insert(static_cast<int>(e.kv_write->spec.dtype));
    kinds.insert(e.kv_write->spec.kind);
    blocks.insert(e.kv_write->spec.block_size);
    flags.insert(e.flags.begin(), e.flags.end());
  }
  EXPECT_GE(writes, 20);
  EXPECT_EQ(dtypes.size(), static_cast<std::size_t>(kKvDtypeCount));
  EXPECT_EQ(kinds.size(), static_cast<std::size_t>(ROPECHECK_KV_CACHE_KIND_COUNT));
  EXPECT_TRUE(blocks.count(1) && blocks.count(16));
  for (const char* f : {"KvCacheWrite", "KvPaddingSlot", "KvLayoutHND", "KvBlockSize1", "KvAscendingSlots", "KvCacheFp8",
                        "KvPerHeadScales", "KvScaleMultiply", "KvSaturating", "KvPassThroughCached", "MlaJointCache",
                        "MlaSplitCache", "PartialRotary", "Inverse", "SchemeYaRN", "RealModelConfig"})
    EXPECT_TRUE(flags.count(f)) << f;
}

// Each fused kernel is judged where it declares the write (the scale
// direction among it) and passes; a plain kernel is judged on q and k of
// every case but the qk-norm ones (the caller's cache cases among them).
TEST(GoldenFused, TheFusedKernelsPassWhereTheyDeclareTheWrite) {
  const ropecheck_impl_t* vllm = impl::scalar_fused_kv_vllm_impl();
  const ropecheck_impl_t* flashinfer = impl::scalar_fused_kv_flashinfer_impl();
  const VerifyReport r = verify_golden(fused().string(), {vllm, flashinfer, mutant::mutant_impl(mutant::Bug::none)});
  for (const ImplVerdicts& v : r.impls)
    for (const CaseVerdict& c : v.cases)
      EXPECT_NE(c.outcome.outcome, Outcome::kFail) << v.impl << " case " << c.id << ": " << c.outcome.message;
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.fused_cases, r.cases - r.qk_norm_cases - r.caller_cache_cases);
  const auto& vl = r.impls[0];
  const auto& fi = r.impls[1];
  EXPECT_EQ(fi.count(Outcome::kPass), 2 + r.caller_cache_cases)
      << "FlashInfer's multiplying write: the two multiply cases, and q and k beside the caller's caches";
  EXPECT_EQ(vl.count(Outcome::kPass) + fi.count(Outcome::kPass), r.fused_cases + 2 * r.caller_cache_cases)
      << "every write is one direction's";
  EXPECT_EQ(r.impls[2].count(Outcome::kPass), r.cases - r.qk_norm_cases) << "the plain control on q and k";
  EXPECT_GT(r.invalid_outputs, 20);
}

TEST(GoldenFused, TheFusedMutantsLeaveInvalidOutputsOnlyWhereTheyChangeTheCase) {
  const Manifest m = load_manifest(fused().string());
  std::map<std::string, int> per_mutant;
  for (const CaseEntry& e : m.cases)
    for (const OutputEntry& o : e.outputs) {
      if (!e.kv_write) continue;  // a qk-norm or caller's cache case: fused_inputs_golden_test.cc
      ++per_mutant[o.mutant];
      EXPECT_EQ(o.bug_class, "KvCacheWrite") << o.mutant;
      ASSERT_EQ(o.cache_steps.size(), o.worst_units.size());
      // Rejected where the manifest says: by q, k or a cache code.
      for (std::size_t j = 0; j < o.worst_units.size(); ++j) {
        const bool allowed = std::count(o.allowed_by.begin(), o.allowed_by.end(), o.worst_units[j].first) > 0;
        EXPECT_EQ(allowed, o.worst_units[j].second <= 1.0 && o.cache_steps[j].second <= 0.0) << e.id << " " << o.mutant;
      }
      // A row shows only where the case has what it gets wrong.
      const std::map<std::string, const char*> needs = {
          {"mutant_kv_padding_writes_last_slot", "KvPaddingSlot"},
          {"mutant_kv_padding_skips_rotation", "KvPaddingSlot"},
          {"mutant_kv_pass_through_not_cached", "KvPassThroughCached"},
          {"mutant_kv_contiguous_prefill_slots", "KvAscendingSlots"},
          {"mutant_mla_entry_order_swapped", "MlaJointCache"},
          {"mutant_kv_scale_direction_flipped", "KvCacheFp8"},  // scales are 1 on the other caches
          {"mutant_kv_scale_ignored", "KvCacheFp8"}};
      if (const auto at = needs.find(o.mutant); at != needs.end()) {
        EXPECT_TRUE(has_flag(e, at->second)) << o.mutant << " on case " << e.id;
      }
    }
  for (const char* row : {"mutant_kv_padding_writes_last_slot", "mutant_kv_scales_swapped",
                          "mutant_kv_scale_direction_flipped", "mutant_kv_scale_ignored",
                          "mutant_kv_pass_through_not_cached", "mutant_kv_unrotated_k_cached",
                          "mutant_kv_contiguous_prefill_slots", "mutant_kv_padding_skips_rotation",
                          "mutant_mla_rope_half_the_dims", "mutant_mla_latent_rotated",
                          "mutant_mla_entry_order_swapped"})
    EXPECT_GT(per_mutant[row], 0) << row << " shows on no fused case";
}

TEST(GoldenFused, AFusedMutantFailsGoldenVerify) {
  const VerifyReport r = verify_golden(fused().string(), {mutant::mutant_impl(mutant::Bug::kv_unrotated_k_cached)});
  EXPECT_FALSE(r.passed());
  EXPECT_GT(r.impls[0].count(Outcome::kFail), 5);
}

// A write other than its layout's, an output's cache steps altered, an
// invalid output pointed at the exact caches, and a version 3 manifest with
// a write: each refused by name, checksums recomputed.
TEST(GoldenFused, AnAlteredWriteOrOutputIsRefusedNamingIt) {
  const fs::path d = copy_of_fused("forged");
  const ordered_json orig = ordered_json::parse(test::slurp(d / "manifest.json"));
  ordered_json m = orig;
  m["cases"][0]["kvWrite"]["blockStride"] = m["cases"][0]["kvWrite"]["blockStride"].get<int>() + 1;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(refusal(d).find("cases[0].kvWrite.blockStride: must be "), std::string::npos) << refusal(d);

  m = orig;
  int c = -1;
  for (std::size_t i = 0; i < m["cases"].size() && c < 0; ++i)
    if (!m["cases"][i]["outputs"].empty() && m["cases"][i]["outputs"][0]["q"] == "q_expected" &&
        m["cases"][i]["outputs"][0]["k"] == "k_expected")
      c = static_cast<int>(i);
  ASSERT_GE(c, 0) << "no output wrong in its caches alone";
  ordered_json& out = m["cases"][static_cast<std::size_t>(c)]["outputs"][0];
  out["cacheSteps"]["exact_f64"] = 1e300;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(refusal(d).find("cacheSteps.exact_f64: is 0x"), std::string::npos) << refusal(d);

  m = orig;
  ordered_json& o2 = m["cases"][static_cast<std::size_t>(c)]["outputs"][0];
  o2["kCache"] = "k_cache_expected";
  o2["vCache"] = m["cases"][static_cast<std::size_t>(c)]["kvWrite"]["cacheKind"] == "mla_joint"
                     ? ordered_json(nullptr)
                     : ordered_json("v_cache_expected");
  for (auto& steps : o2["cacheSteps"]) steps = 0;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(refusal(d).find("where the manifest marks it invalid"), std::string::npos) << refusal(d);

  m = orig;
  m["schema"] = "ropecheck_golden_manifest_v3.schema.json";
  m["schemaVersion"] = 3;
  test::forge_manifest(d, m.dump(1));
  EXPECT_NE(refusal(d).find("cases[0].kvWrite: a KV-cache write needs schemaVersion 4 (this manifest states 3)"),
            std::string::npos)
      << refusal(d);
}

}  // namespace
}  // namespace ropecheck::golden
