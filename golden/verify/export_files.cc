// SPDX-License-Identifier: MIT
// Reading an export from disk, never trusting it: the definitions of golden/verify/export_files.h.
#include "golden/verify/export_files.h"

#include <filesystem>
#include <sstream>

#include "core/io/file_read.h"
#include "core/io/sha256.h"

namespace ropecheck::golden {
namespace {

constexpr const char* kManifest = "manifest.json";

}  // namespace

std::string read_export_file(const std::string& dir, const std::string& relative) {
  const std::string path = (std::filesystem::path(dir) / relative).string();
  ReadLimits lim;
  lim.max_bytes = kMaxTensorFileBytes;
  lim.regular_only = true;  // a symlink to /dev/zero or a FIFO in an export is refused, not read
  std::string text;
  try {
    text = read_file_bounded(path, lim);
  } catch (const FileReadError& e) {
    throw FormatError(path, "file", e.cause());
  }
  // Inside the export once every link is followed: a case file symlinked to
  // a file elsewhere (another export's, with checksums to match) is refused.
  std::error_code ec_dir, ec_file;
  const std::filesystem::path root = std::filesystem::canonical(dir, ec_dir);
  const std::filesystem::path real = std::filesystem::weakly_canonical(path, ec_file);
  if (!ec_dir && !ec_file) {
    const std::filesystem::path rel = real.lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..")
      throw FormatError(path, "file", "resolves to " + real.string() + ", outside the export " + root.string() +
                                          " (a symlink out of it): every file of an export lies inside it");
  }
  return text;
}

Manifest load_manifest(const std::string& dir, const std::string& expect_sums_sha256) {
  const std::string text = read_export_file(dir, kManifest);
  const std::string mpath = (std::filesystem::path(dir) / kManifest).string();
  const std::string spath = (std::filesystem::path(dir) / "SHA256SUMS").string();
  // SHA256SUMS is what an export is pinned by: without it nothing would
  // notice a manifest replaced together with the files it lists.
  if (!std::filesystem::exists(std::filesystem::symlink_status(spath)))
    throw FormatError(spath, "file", "missing: every export carries SHA256SUMS, which checks manifest.json");
  const std::string sums = read_export_file(dir, "SHA256SUMS");
  if (!expect_sums_sha256.empty() && sha256_hex(sums) != expect_sums_sha256)
    throw FormatError(spath, "sha256", "is " + sha256_hex(sums) + ", not the pinned " + expect_sums_sha256 +
                                           " (--expect-sha256): a different or altered export");
  std::istringstream ls(sums);
  std::string line;
  int listed = 0;
  while (std::getline(ls, line)) {
    if (line.size() > 66 && line.substr(66) == kManifest) {
      ++listed;
      if (line.substr(0, 64) != sha256_hex(text))
        throw FormatError(mpath, "sha256", "does not match SHA256SUMS (altered or truncated file)");
    }
  }
  if (listed != 1)
    throw FormatError(mpath, "SHA256SUMS", listed ? "is listed more than once" : "does not list manifest.json");
  Manifest m = parse_manifest(text, mpath);
  if (m.cases.empty()) throw FormatError(mpath, "$.cases", "lists no case: an empty export verifies nothing");
  return m;
}

std::vector<Tensor> load_case_tensors(const std::string& dir, const Manifest& m, const CaseEntry& e) {
  std::vector<Tensor> out;
  for (const FileEntry& f : e.files) {
    const std::string path = (std::filesystem::path(dir) / f.path).string();
    const std::string data = read_export_file(dir, f.path);
    if (data.size() != f.bytes)
      throw FormatError(path, "bytes", std::to_string(data.size()) + " bytes where the manifest records " +
                                           std::to_string(f.bytes) + (data.size() < f.bytes ? " (truncated file)" : ""));
    if (sha256_hex(data) != f.sha256)
      throw FormatError(path, "sha256", "does not match the manifest (altered file)");
    switch (m.format) {
      case Format::kSafetensors: {
        auto t = read_safetensors(data, path);
        out.insert(out.end(), std::make_move_iterator(t.begin()), std::make_move_iterator(t.end()));
        break;
      }
      case Format::kJson: {
        auto t = read_hex_json(data, path);
        out.insert(out.end(), std::make_move_iterator(t.begin()), std::make_move_iterator(t.end()));
        break;
      }
      case Format::kNpy:
        out.push_back(read_npy(data, path, std::filesystem::path(f.path).stem().string()));
        break;
    }
  }
  return out;
}

}  // namespace ropecheck::golden
