// SPDX-License-Identifier: MIT
// What the golden tests that alter an export share: reading a file whole,
// and rewriting manifest.json with a SHA256SUMS that matches it, as a
// forger (or a hand edit) would.
#ifndef ROPECHECK_GOLDEN_TEST_FORGE_H_
#define ROPECHECK_GOLDEN_TEST_FORGE_H_

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/io/sha256.h"

namespace ropecheck::golden::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void forge_manifest(const std::filesystem::path& d, const std::string& text) {
  std::ofstream(d / "manifest.json", std::ios::binary | std::ios::trunc) << text;
  std::string sums = slurp(d / "SHA256SUMS");
  const auto at = sums.find("  manifest.json\n");
  sums.replace(at - 64, 64, sha256_hex(text));
  std::ofstream(d / "SHA256SUMS", std::ios::binary | std::ios::trunc) << sums;
}

}  // namespace ropecheck::golden::test

#endif  // ROPECHECK_GOLDEN_TEST_FORGE_H_
