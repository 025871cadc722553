// SPDX-License-Identifier: MIT
// --config as `check` and `golden export` both read it: the definitions of cli/config_option.h.
#include "cli/config_option.h"

#include <sstream>

#include "cli/command_error.h"
#include "core/io/file_read.h"
#include "reference/freq_spec.h"

namespace ropecheck::cli {
namespace {

void print_model_rope(const std::string& path, const ModelRope& m, std::ostream& os) {
  os << "config " << path << (m.model_type.empty() ? "" : " (" + m.model_type + ")") << ":\n";
  std::istringstream lines(describe_model_rope(m));
  for (std::string line; std::getline(lines, line);) os << "  " << line << "\n";
  for (const LayerTypeRope& t : m.layer_types)
    if (!t.config.shape_stated) os << "  it states no head shape, so every case keeps its own\n";
  if (!m.ignored.empty()) {
    os << "  ignored (not RoPE):";
    for (const std::string& k : m.ignored) os << " " << k;
    os << "\n";
  }
}

}  // namespace

ModelRope read_config_option(const std::string& path, std::ostream& err) {
  ModelRope m;
  try {
    m = naming_source("--config " + path, [&] { return read_model_rope_file(path); });
  } catch (const FileReadError& e) {  // its message starts with the path
    throw std::runtime_error(std::string("--config ") + e.what());
  }
  print_model_rope(path, m, err);
  return m;
}

}  // namespace ropecheck::cli
