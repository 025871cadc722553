// SPDX-License-Identifier: MIT
// What the golden tests that read an export with the bug catalogue's
// outputs share: the suite exported once per process with every row of the
// catalogue (removed when the test binary exits), a fresh copy of it to
// alter, and what `golden verify` refuses in a directory.
#ifndef ROPECHECK_GOLDEN_TEST_CATALOGUE_EXPORT_H_
#define ROPECHECK_GOLDEN_TEST_CATALOGUE_EXPORT_H_

#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "golden/export/exporter.h"
#include "golden/verify/verifier.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck::golden::test {

inline const std::filesystem::path& catalogue_root() {
  static const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("ropecheck_outputs_" + std::to_string(::getpid()));
  static const struct Cleanup {
    ~Cleanup() { std::filesystem::remove_all(root); }
  } cleanup;
  return root;
}

// `suite` exported (safetensors, 2 threads) with the catalogue's outputs.
inline const std::filesystem::path& catalogue_export(const std::string& suite) {
  static std::map<std::string, std::filesystem::path> done;
  if (auto at = done.find(suite); at != done.end()) return at->second;
  ExportOptions o;
  o.suite = suite;
  o.out_dir = (catalogue_root() / suite).string();
  o.threads = 2;
  for (const mutant::BugInfo& b : mutant::kBugs)
    if (b.bug != mutant::Bug::none) o.mutants.push_back({b.name, b.description, mutant::mutant_impl(b.bug), b.bug_class, b.published_bug, b.not_shown});
  o.control = mutant::mutant_impl(mutant::Bug::none);
  export_golden(o);
  return done[suite] = catalogue_root() / suite;
}

inline std::filesystem::path copy_of(const std::filesystem::path& d, const std::string& name) {
  const std::filesystem::path to = catalogue_root() / name;
  std::filesystem::remove_all(to);
  std::filesystem::copy(d, to, std::filesystem::copy_options::recursive);
  return to;
}

// What verify_golden refuses the directory with ("" when it reads it).
inline std::string refusal(const std::filesystem::path& d) {
  try {
    verify_golden(d.string(), {});
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ropecheck::golden::test

#endif  // ROPECHECK_GOLDEN_TEST_CATALOGUE_EXPORT_H_
