// SPDX-License-Identifier: MIT
// Exports that lie: every one is refused naming the file and what is wrong.
// Checksums catch corruption; a replaced manifest with a matching SHA256SUMS
// is what --expect-sha256 (a pin on SHA256SUMS) is for.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <cmath>
#include <cstring>

#include "golden/verify/export_files.h"
#include "golden/export/exporter.h"
#include "core/io/sha256.h"
#include "golden/test/forge.h"
#include "golden/verify/verifier.h"

namespace ropecheck::golden {
namespace {
namespace fs = std::filesystem;

const fs::path& hostile_root() {
  static const fs::path r = fs::temp_directory_path() / ("ropecheck_hostile_" + std::to_string(::getpid()));
  static const struct Cleanup {
    ~Cleanup() { fs::remove_all(r); }
  } cleanup;
  return r;
}

fs::path fresh_export(const std::string& name) {
  const fs::path& root = ropecheck::golden::hostile_root();
  const fs::path d = root / name;
  fs::remove_all(d);
  fs::create_directories(root);
  ExportOptions o;
  o.suite = "smoke";
  o.out_dir = d.string();
  o.threads = 2;
  export_golden(o);
  return d;
}

using test::forge_manifest;
using test::slurp;

std::string error_of(const fs::path& d, const std::string& pin = {}) {
  try {
    load_manifest(d.string(), pin);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(HostileExport, SumsAreRequiredAndAPinCatchesAConsistentForgery) {
  const fs::path d = fresh_export("pin");
  const std::string pin = sha256_hex(slurp(d / "SHA256SUMS"));
  EXPECT_EQ(error_of(d, pin), "accepted");
  std::string manifest = slurp(d / "manifest.json");
  manifest.replace(manifest.find("\"generator\": \"") + 14, 9, "forged by");
  forge_manifest(d, manifest);
  EXPECT_EQ(error_of(d), "accepted");  // consistent checksums: corruption no, tampering yes
  EXPECT_NE(error_of(d, pin).find("SHA256SUMS: sha256: is "), std::string::npos) << error_of(d, pin);
  EXPECT_NE(error_of(d, pin).find("not the pinned " + pin), std::string::npos);
  fs::remove(d / "SHA256SUMS");  // deleting it changed nothing before
  EXPECT_NE(error_of(d).find("SHA256SUMS: file: missing"), std::string::npos) << error_of(d);
}

TEST(HostileExport, AnEmptyManifestAndRepeatedKeysAreRefused) {
  const fs::path d = fresh_export("empty");
  nlohmann::ordered_json m = nlohmann::ordered_json::parse(slurp(d / "manifest.json"));
  m["cases"] = nlohmann::ordered_json::array();
  m["numberOfCases"] = 0;
  forge_manifest(d, m.dump(1));
  EXPECT_NE(error_of(d).find("$.cases: lists no case"), std::string::npos) << error_of(d);
  std::string dup = slurp(d / "manifest.json");
  dup.insert(dup.find("\"suite\""), "\"suite\": \"standard\",\n ");
  forge_manifest(d, dup);
  EXPECT_NE(error_of(d).find("$.suite: appears twice"), std::string::npos) << error_of(d);
}

TEST(HostileExport, ASymlinkToADeviceInPlaceOfAFileIsRefusedByName) {
  const fs::path d = fresh_export("zero");
  const Manifest m = load_manifest(d.string());
  const fs::path victim = d / m.cases[0].files[0].path;
  fs::remove(victim);
  fs::create_symlink("/dev/zero", victim);
  try {
    verify_golden(d.string(), {});
    FAIL() << "read /dev/zero as a case file";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(victim.string() + ": file: is a character device"), std::string::npos)
        << e.what();
  }
  fs::remove(d / "manifest.json");
  fs::create_symlink("/dev/zero", d / "manifest.json");
  EXPECT_NE(error_of(d).find("manifest.json: file: is a character device"), std::string::npos) << error_of(d);
}

TEST(HostileExport, ARepeatedTensorInASafetensorsHeaderIsRefused) {
  const std::string header =
      R"({"q":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"q":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  file += header + std::string(4, '\0');
  try {
    read_safetensors(file, "dup.safetensors");
    FAIL() << "accepted a tensor named twice";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("appears twice"), std::string::npos) << e.what();
  }
}

// A multi-axis case's description altered in the manifest (with matching
// checksums): refused naming the field, or the tensor it disagrees with,
// never read as another assignment and never a crash.
TEST(HostileExport, AlteredAxesAreRefusedNamingTheField) {
  const fs::path d = fresh_export("axes");
  const nlohmann::ordered_json good = nlohmann::ordered_json::parse(slurp(d / "manifest.json"));
  std::size_t k = 0;  // the first case in consecutive sections (qwen2-vl/mrope: 16/24/24 of 64 pairs)
  while (!good["cases"][k].contains("axes") || good["cases"][k]["axes"]["assignment"] != "sections") ++k;
  const std::string p = "$.cases[" + std::to_string(k) + "].axes";
  auto error_with = [&](const std::function<void(nlohmann::ordered_json&)>& alter) {
    nlohmann::ordered_json m = good;
    alter(m["cases"][k]);
    forge_manifest(d, m.dump(1));
    try {
      const Manifest man = load_manifest(d.string());
      load_case(d.string(), man, man.cases[k]);
    } catch (const FormatError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const auto has = [](const std::string& error, const std::string& part) {
    return error.find(part) != std::string::npos;
  };
  std::string e = error_with([](auto& c) { c["axes"]["sections"] = {16, 24, 20}; });
  EXPECT_TRUE(has(e, p + ": axis_sections: must sum to rotary_dim/2 = 64 (got 60)")) << e;
  e = error_with([](auto& c) { c["axes"]["assignment"] = "rows"; });
  EXPECT_TRUE(has(e, p + ".assignment: must be sections, interleaved or table (got \"rows\")")) << e;
  e = error_with([](auto& c) { c["axes"]["frequencies"] = "both"; });
  EXPECT_TRUE(has(e, p + ".frequencies: must be shared or per_axis")) << e;
  e = error_with([](auto& c) { c["axes"]["numAxes"] = 9; });
  EXPECT_TRUE(has(e, p + ".numAxes")) << e;
  e = error_with([](auto& c) { c["axes"]["sections"] = {16, 24, "24"}; });
  EXPECT_TRUE(has(e, p + ".sections[2]: must be an integer")) << e;
  e = error_with([](auto& c) {
    c["axes"]["assignment"] = "interleaved";
    c["axes"]["sections"] = {4, 30, 30};
  });
  EXPECT_TRUE(has(e, p + ": axis_sections[1]: 30 interleaved pairs do not fit")) << e;
  e = error_with([](auto& c) {
    c["axes"]["assignment"] = "table";
    c["axes"].erase("sections");
    std::vector<int> table(64, 0);
    table[5] = 3;
    c["axes"]["table"] = table;
  });
  EXPECT_TRUE(has(e, p + ": pair_axis[5]: must be in [0, num_axes = 3) (got 3)")) << e;
  e = error_with([](auto& c) { c["axes"]["table"] = {0, 1}; });
  EXPECT_TRUE(has(e, p + ".table: is not read by the sections assignment")) << e;
  // Valid descriptions the case files contradict: their tensors are named.
  e = error_with([](auto& c) {
    c["axes"]["numAxes"] = 2;
    c["axes"]["sections"] = {16, 48};
  });
  EXPECT_TRUE(has(e, "tensor 'positions': shape disagrees with the manifest")) << e;
  e = error_with([](auto& c) { c["axes"]["sections"] = {24, 24, 16}; });
  EXPECT_TRUE(has(e, "tensor 'pair_axis': pair 16 is on axis 1 where the manifest's")) << e;
  e = error_with([](auto& c) { c.erase("axes"); });
  EXPECT_TRUE(has(e, "tensor 'positions': shape disagrees with the manifest")) << e;
}

// kill -9 during an export left <dir>.partial-<pid> for ever.
// Rewrites one tensor of case k's safetensors file through `alter`, then
// the manifest's sha256 and byte count of that file and SHA256SUMS, as a
// forger would: every checksum matches the altered export.
void forge_tensor(const fs::path& d, std::size_t k, const std::string& tensor, const std::function<void(Tensor&)>& alter) {
  nlohmann::ordered_json m = nlohmann::ordered_json::parse(slurp(d / "manifest.json"));
  auto& file = m["cases"][k]["files"][0];
  const fs::path path = d / file["path"].get<std::string>();
  std::vector<Tensor> ts = read_safetensors(slurp(path), path.string());
  bool found = false;
  for (Tensor& t : ts)
    if (t.name == tensor) {
      alter(t);
      found = true;
    }
  ASSERT_TRUE(found) << tensor;
  const std::string bytes = write_safetensors(ts);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  file["sha256"] = sha256_hex(bytes);
  file["bytes"] = bytes.size();
  forge_manifest(d, m.dump(1));
}

std::string case_error(const fs::path& d, std::size_t k) {
  try {
    const Manifest man = load_manifest(d.string());
    load_case(d.string(), man, man.cases[k]);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "accepted";
}

void scale_first(Tensor& t, double by) {
  double v;
  std::memcpy(&v, t.bytes.data(), 8);
  v = std::fpclassify(v) == FP_ZERO ? 1 : v * by;
  std::memcpy(t.bytes.data(), &v, 8);
}

// The verifier holds the reference: what follows from a case's inputs is
// recomputed, so an export whose budgets, expected values, angles or
// attention factor were edited, its checksums recomputed to match (no pin),
// is refused naming the file, the tensor and the element.
TEST(HostileExport, EditedDerivedValuesAreRecomputedAndRefused) {
  const fs::path d = fresh_export("derived");
  const std::string good_manifest = slurp(d / "manifest.json"), good_sums = slurp(d / "SHA256SUMS");
  const std::string case_file = d / "cases" / "0001.safetensors";
  const std::string good_case = slurp(case_file);
  auto restore = [&] {
    std::ofstream(d / "manifest.json", std::ios::binary | std::ios::trunc) << good_manifest;
    std::ofstream(d / "SHA256SUMS", std::ios::binary | std::ios::trunc) << good_sums;
    std::ofstream(case_file, std::ios::binary | std::ios::trunc) << good_case;
  };
  ASSERT_EQ(case_error(d, 0), "accepted");
  std::string budget;
  for (const Tensor& t : read_safetensors(good_case, case_file))
    if (t.name.find("q_budget_") == 0) budget = t.name;
  ASSERT_FALSE(budget.empty());
  for (const std::string& tensor : {budget, std::string("q_expected_f64"), std::string("angle"), std::string("inv_freq")}) {
    forge_tensor(d, 0, tensor, [](Tensor& t) { scale_first(t, 10); });
    const std::string e = case_error(d, 0);
    EXPECT_NE(e.find("0001.safetensors: tensor '" + tensor + "' element 0: holds"), std::string::npos) << e;
    EXPECT_NE(e.find("where the reference gives"), std::string::npos) << e;
    restore();
  }
  // The rounded expected output, one ulp off.
  forge_tensor(d, 0, "k_expected", [](Tensor& t) { t.bytes[0] ^= 1; });
  EXPECT_NE(case_error(d, 0).find("tensor 'k_expected' element 0"), std::string::npos) << case_error(d, 0);
  restore();
  // The attention factor in the manifest.
  nlohmann::ordered_json m = nlohmann::ordered_json::parse(good_manifest);
  m["cases"][0]["attentionFactor"] = 2.0;
  m["cases"][0]["attentionFactorHex"] = "0x1p+1";
  forge_manifest(d, m.dump(1));
  const std::string e = case_error(d, 0);
  EXPECT_NE(e.find("manifest.json: case 1 attentionFactorHex: is 0x1p+1 where the reference gives"), std::string::npos) << e;
  restore();
  EXPECT_EQ(case_error(d, 0), "accepted");
}

// A case listed twice (the same id, or another id over the same file) is
// refused: it would be judged twice.
TEST(HostileExport, ACaseListedTwiceIsRefused) {
  const fs::path d = fresh_export("twice");
  const nlohmann::ordered_json good = nlohmann::ordered_json::parse(slurp(d / "manifest.json"));
  nlohmann::ordered_json m = good;
  m["cases"].push_back(good["cases"][0]);
  m["numberOfCases"] = m["cases"].size();
  forge_manifest(d, m.dump(1));
  const std::size_t last = m["cases"].size() - 1;
  EXPECT_NE(error_of(d).find("$.cases[" + std::to_string(last) + "].id: repeats case id 1 of $.cases[0]"), std::string::npos)
      << error_of(d);
  m["cases"][last]["id"] = 9999;
  forge_manifest(d, m.dump(1));
  EXPECT_NE(error_of(d).find("$.cases[" + std::to_string(last) + "].files: lists cases/0001.safetensors, which $.cases[0] lists too"),
            std::string::npos)
      << error_of(d);
}

// A case file replaced by a symlink to a file outside the export (another
// export's, whose checksums the manifest was made to match) is refused.
TEST(HostileExport, ACaseFileSymlinkedOutsideTheExportIsRefused) {
  const fs::path d = fresh_export("inside"), other = fresh_export("outside");
  nlohmann::ordered_json m = nlohmann::ordered_json::parse(slurp(d / "manifest.json"));
  const nlohmann::ordered_json o = nlohmann::ordered_json::parse(slurp(other / "manifest.json"));
  m["cases"][1]["files"] = o["cases"][1]["files"];
  forge_manifest(d, m.dump(1));
  fs::remove(d / "cases" / "0002.safetensors");
  fs::create_symlink(fs::absolute(other / "cases" / "0002.safetensors"), d / "cases" / "0002.safetensors");
  const std::string e = case_error(d, 1);
  EXPECT_NE(e.find("0002.safetensors: file: resolves to"), std::string::npos) << e;
  EXPECT_NE(e.find("outside the export"), std::string::npos) << e;
}

TEST(HostileExport, StagingDirectoriesOfDeadExportsAreRemoved) {
  const fs::path d = fresh_export("stale");
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);  // reaped: its pid names no process now
  const fs::path stale = d.string() + ".partial-" + std::to_string(dead);
  const fs::path live = d.string() + ".partial-" + std::to_string(::getppid());
  fs::create_directories(stale / "cases");
  fs::create_directories(live);
  fresh_export("stale");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));  // another export may be running
  fs::remove_all(live);
}

}  // namespace
}  // namespace ropecheck::golden
