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

#include "golden/exporter.h"
#include "core/sha256.h"
#include "golden/test/forge.h"
#include "golden/verifier.h"

namespace ropecheck::golden {
namespace {
namespace fs = std::filesystem;

const fs::path& root() {
  static const fs::path r = fs::temp_directory_path() / ("ropecheck_hostile_" + std::to_string(::getpid()));
  static const struct Cleanup {
    ~Cleanup() { fs::remove_all(r); }
  } cleanup;
  return r;
}

fs::path fresh_export(const std::string& name) {
  const fs::path& root = ropecheck::golden::root();
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
