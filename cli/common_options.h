// What several subcommands share: the implementation-selection options
// (--impl, --plugin, --no-isolation, --timeout) and the progress lines.
#ifndef ROPECHECK_CLI_COMMON_OPTIONS_H_
#define ROPECHECK_CLI_COMMON_OPTIONS_H_

#include <CLI/CLI.hpp>

#include <functional>

#include "cli/impl_selection.h"

namespace ropecheck::cli {

void add_selection_options(CLI::App* cmd, SelectionArgs& a);
// "  20/120 cases" every 20 cases and at the end, on stderr.
std::function<void(int, int)> progress_printer();

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_COMMON_OPTIONS_H_
