#include "cli/common_options.h"

#include <iostream>

namespace ropecheck::cli {

void add_selection_options(CLI::App* cmd, SelectionArgs& a) {
  cmd->add_option("--impl", a.names,
                  "Implementation(s) (default: every built-in one, or every kernel of --plugin)");
  cmd->add_option("--plugin", a.plugins, "Shared library exporting ropecheck_get_impls (repeatable)");
  cmd->add_flag("!--no-isolation", a.isolation,
                "Run kernels in this process (default: a child process per call, guard pages, timeout)");
  cmd->add_option("--timeout", a.timeout_seconds, "Seconds one isolated kernel call may take")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
}

std::function<void(int, int)> progress_printer() {
  return [](int done, int total) {
    if (done == total || done % 20 == 0) std::cerr << "  " << done << "/" << total << " cases\n";
  };
}

}  // namespace ropecheck::cli
