// SPDX-License-Identifier: MIT
// Fuzzes the command line in process: the input, split at NUL bytes, is an
// argument vector for `ropecheck`, parsed and validated by
// cli::parse_command_line exactly as main() does, without running anything.
// Every vector must give an exit status of 0 (--help) or 2 (a refusal), or be
// accepted with every bounded value inside its bound; never a crash, an
// exit, or a value that slipped through (NaN timeouts, negative counts).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.h"

namespace {

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "cli_args_fuzzer: %s\n", why.c_str());
  std::abort();
}

void check_selection(const ropecheck::cli::SelectionArgs& s) {
  if (!(s.timeout_seconds >= 0.01 && s.timeout_seconds <= 3600)) fail("accepted --timeout " + std::to_string(s.timeout_seconds));
  if (!(s.memory_limit_gib >= 0 && s.memory_limit_gib <= 65536)) fail("accepted --memory-limit");
  if (s.isolation_mode != "worker" && s.isolation_mode != "fork") fail("accepted --isolation " + s.isolation_mode);
  if (!s.isolation && s.isolation_mode != "worker") fail("accepted --isolation with --no-isolation");
  for (std::size_t i = 0; i < s.plugins.size(); ++i)
    if (s.plugins[i].empty()) fail("accepted an empty --plugin");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"ropecheck"};
  std::string cur;
  for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) args.push_back(cur);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  ropecheck::cli::CommandLine cl;
  std::ostringstream out, err;
  const int rc = ropecheck::cli::parse_command_line(cl, static_cast<int>(argv.size()), argv.data(), out, err);
  if (rc == 2 && err.str().find("error: ") == std::string::npos) fail("exit 2 without a message");
  if (rc != ropecheck::cli::kRunCommand && rc != 0 && rc != 2) fail("exit status " + std::to_string(rc));
  if (rc != ropecheck::cli::kRunCommand) return 0;
  // Accepted: every bounded value is inside its bound.
  if (*cl.check) {
    const auto& a = cl.check_args;
    check_selection(a.selection);
    if (a.cases == 0 || a.cases < -1 || a.case_index < -1) fail("accepted --cases/--case out of range");
    if (a.min_judged < 1 || a.threads < 1 || a.threads > 256) fail("accepted --min-judged/--threads out of range");
    if (a.files.summary.empty() != (cl.check->count("--summary") == 0)) fail("accepted an empty --summary");
    if (a.seed != "random" && a.seed.find_first_not_of("0123456789") != std::string::npos) fail("accepted --seed " + a.seed);
  }
  if (*cl.golden) check_selection(cl.golden_args.selection);
  if (*cl.mutants && !(cl.mutants_args.timeout_seconds >= 0.01 && cl.mutants_args.timeout_seconds <= 3600))
    fail("accepted mutants --timeout");
  return 0;
}
