// SPDX-License-Identifier: MIT
// What several subcommands share: the definitions of cli/common_options.h.
#include "cli/common_options.h"

#include <cmath>
#include <iostream>
#include <sstream>

namespace ropecheck::cli {
namespace {

std::string bound_text(double lo, double hi) {
  std::ostringstream os;
  os << "must be in [" << lo << ", " << hi << "]";
  return os.str();
}

}  // namespace

CLI::Validator finite_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        double v = NAN;
        std::size_t used = 0;
        try {
          v = std::stod(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != s.size() || s.empty() || !(v >= lo && v <= hi)) return bound_text(lo, hi) + " (got '" + s + "')";
        return {};
      },
      "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator integer_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        const std::string bound = "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos)
          return bound + " (got '" + s + "')";
        const long long v = std::stoll(s);
        if (v < lo || v > hi) return bound + " (got " + s + ")";
        return {};
      },
      "INT");
}

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& s) -> std::string { return s.empty() ? "must name a file (got an empty path)" : ""; }, "PATH");
}

void add_selection_options(CLI::App* cmd, SelectionArgs& a) {
  cmd->add_option("--impl", a.names,
                  "Implementation(s) (default: every built-in one, or every kernel of --plugin)");
  cmd->add_option("--plugin", a.plugins, "Shared library exporting ropecheck_get_impls (repeatable)")
      ->check(non_empty_path());
  auto* off = cmd->add_flag("!--no-isolation", a.isolation,
                            "Run kernels in this process (default: isolated, guard pages, timeout; "
                            "docs/RELIABILITY.md says what this gives up)");
  cmd->add_option("--isolation", a.isolation_mode,
                  "How kernels are isolated: 'worker', one persistent worker process per implementation, "
                  "replaced after any failing call; 'fork', a child process per call (docs/PLUGINS.md)")
      ->check(CLI::IsMember({"worker", "fork"}))
      ->capture_default_str()
      ->excludes(off);
  cmd->add_option("--timeout", a.timeout_seconds, "Seconds one isolated kernel call may take, per 2^24 elements it computes (at least once)")
      ->check(finite_in(0.01, 3600))
      ->capture_default_str();
  cmd->add_option("--memory-limit", a.memory_limit_gib,
                  "GiB of address space an isolated kernel call may add (0: no limit)")
      ->check(finite_in(0, 65536))
      ->capture_default_str();
}

std::function<void(int, int)> progress_printer() {
  return [](int done, int total) {
    if (done == total || done % 20 == 0) std::cerr << "  " << done << "/" << total << " cases\n";
  };
}

}  // namespace ropecheck::cli
