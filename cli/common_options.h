// SPDX-License-Identifier: MIT
// What several subcommands share: the implementation-selection options
// (--impl, --plugin, --no-isolation, --timeout, --memory-limit), the
// validators every bounded option uses, and the progress lines.
#ifndef ROPECHECK_CLI_COMMON_OPTIONS_H_
#define ROPECHECK_CLI_COMMON_OPTIONS_H_

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "cli/impl_selection.h"

namespace ropecheck::cli {

void add_selection_options(CLI::App* cmd, SelectionArgs& a);
// A number in [lo, hi]: CLI::Range lets NaN through (every comparison with
// it is false), which turned the hang timeout off.
CLI::Validator finite_in(double lo, double hi);
// An integer in [lo, hi] written as digits only (no sign, no exponent).
CLI::Validator integer_in(long long lo, long long hi);
// A path that names something: "" was silently ignored.
CLI::Validator non_empty_path();
// "  20/120 cases" every 20 cases and at the end, on stderr.
std::function<void(int, int)> progress_printer();

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_COMMON_OPTIONS_H_
