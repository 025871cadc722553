// SPDX-License-Identifier: MIT
// The rope config entry points: a config file or text read as one rope, and a config applied to a case.
#include "core/config/config.h"

#include <string>
#include <utility>

#include "core/config/model_rope.h"
#include "core/io/file_read.h"

namespace ropecheck {

using ref::ConfigError;

RopeConfig read_rope_config_file(const std::string& path) {
  ReadLimits lim;
  lim.max_bytes = kMaxConfigBytes;
  return parse_rope_config(read_file_bounded(path, lim));
}

RopeConfig parse_rope_config(std::string_view text) {
  ModelRope m = parse_model_rope(text);
  if (m.layer_types.size() != 1) {
    std::string names;
    for (const auto& t : m.layer_types) names += (names.empty() ? "" : ", ") + t.name;
    throw ConfigError("layer_types", "the model has " + std::to_string(m.layer_types.size()) +
                                         " layer types with different RoPE (" + names +
                                         "); read it with parse_model_rope, which gives one config per layer type");
  }
  return std::move(m.layer_types.front().config);
}

void apply_config(const RopeConfig& config, ref::FreqSpec* freq, ref::HeadShape* shape) {
  *freq = config.freq;
  if (config.shape_stated || config.axes.multi()) {  // M-RoPE sections cover the config's rotary dim
    *shape = config.shape;
    return;
  }
  try {
    ref::validate(config.freq, *shape);
  } catch (const ConfigError&) {
    *shape = config.shape;
  }
}

}  // namespace ropecheck
