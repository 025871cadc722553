// Exports that lie: every one is refused naming the file and what is wrong.
// Checksums catch corruption; a replaced manifest with a matching SHA256SUMS
// is what --expect-sha256 (a pin on SHA256SUMS) is for.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "golden/exporter.h"
#include "golden/sha256.h"
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

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Rewrites manifest.json and SHA256SUMS consistently, as a forger would.
void forge_manifest(const fs::path& d, const std::string& text) {
  std::ofstream(d / "manifest.json", std::ios::binary | std::ios::trunc) << text;
  std::string sums = slurp(d / "SHA256SUMS");
  const auto at = sums.find("  manifest.json\n");
  sums.replace(at - 64, 64, sha256_hex(text));
  std::ofstream(d / "SHA256SUMS", std::ios::binary | std::ios::trunc) << sums;
}

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
