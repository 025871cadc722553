// SPDX-License-Identifier: MIT
// Fuzzes the golden manifest reader: any input gives a Manifest or a
// FormatError naming manifest.json and a JSON path; an accepted manifest is
// written back and must read back to the same cases and files.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "golden/manifest/manifest.h"

using namespace ropecheck::golden;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 20)) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Manifest m;
  try {
    m = parse_manifest(text, "manifest.json");
  } catch (const FormatError& e) {
    if (std::string_view(e.what()).rfind("manifest.json: ", 0) != 0) {
      std::fprintf(stderr, "FormatError does not name the file: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  const Manifest back = parse_manifest(manifest_to_json(m), "again");
  bool same = back.cases.size() == m.cases.size() && back.format == m.format && back.suite == m.suite;
  for (std::size_t i = 0; same && i < m.cases.size(); ++i) {
    const CaseEntry &a = m.cases[i], &b = back.cases[i];
    same = a.id == b.id && a.flags == b.flags && a.files.size() == b.files.size() && a.tokens == b.tokens &&
           a.config.freq.describe() == b.config.freq.describe() && a.dtype == b.dtype;
    for (std::size_t f = 0; same && f < a.files.size(); ++f)
      same = a.files[f].path == b.files[f].path && a.files[f].sha256 == b.files[f].sha256;
  }
  if (!same) {
    std::fprintf(stderr, "manifest changed in a write/read round trip\n");
    std::abort();
  }
  return 0;
}
