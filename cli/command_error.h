// SPDX-License-Identifier: MIT
// How a command refuses bad input or a failed read: it throws, and
// run_command (cli/command_line.cc), the commands' one catch, prints
// "error: <what>" and exits 2 (or with the interrupt's status after a
// SIGINT). A ConfigError names the field and its bound; naming_source adds
// the file or option the field came from.
#ifndef ROPECHECK_CLI_COMMAND_ERROR_H_
#define ROPECHECK_CLI_COMMAND_ERROR_H_

#include <stdexcept>
#include <string>

#include "reference/freq_spec.h"

namespace ropecheck::cli {

template <class Read>
auto naming_source(const std::string& source, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const ref::ConfigError& e) {
    throw std::runtime_error(source + ": " + e.what());
  }
}

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_COMMAND_ERROR_H_
