// SPDX-License-Identifier: MIT
// --config as `check` and `golden export` both read it: one reading of the
// model's config.json (core/config/model_rope.h), one message when it is
// refused, and the same account of what was read.
#ifndef ROPECHECK_CLI_CONFIG_OPTION_H_
#define ROPECHECK_CLI_CONFIG_OPTION_H_

#include <ostream>
#include <string>

#include "core/config/model_rope.h"

namespace ropecheck::cli {

// The model's rope read from `path`, with what was read written to `err`
// (every layer type's rope, the layers without RoPE, the fields read as not
// affecting RoPE).
// Throws std::runtime_error "--config <path>: <why>" naming the field and its
// bound, or the file and why it cannot be read (cli/command_error.h).
ModelRope read_config_option(const std::string& path, std::ostream& err);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_CONFIG_OPTION_H_
