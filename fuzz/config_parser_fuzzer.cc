// SPDX-License-Identifier: MIT
// Fuzzes the rope config reader (HF config.json, rope_scaling /
// rope_parameters dicts, ropecheck's schema). Every input must give a
// validated config or a ConfigError; a config that parses must also survive
// the reference (frequencies) and round-trip through our own schema.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/config/config.h"
#include "reference/frequencies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ropecheck::RopeConfig c;
  try {
    c = ropecheck::parse_rope_config(text);
  } catch (const ropecheck::ref::ConfigError& e) {
    if (e.field().empty()) {
      std::fprintf(stderr, "ConfigError without a field name: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  // Accepted: the reference must take it (bounded work: rotary_dim <= 4096).
  const auto f = ropecheck::ref::compute_frequencies<ropecheck::ref::Real>(c.freq, c.shape.rotary_dim);
  if (f.inv_freq.size() != static_cast<std::size_t>(c.shape.rotary_dim / 2)) std::abort();
  const ropecheck::RopeConfig back = ropecheck::parse_rope_config(ropecheck::config_to_json(c));
  if (back.freq.describe() != c.freq.describe() || back.shape.rotary_dim != c.shape.rotary_dim ||
      back.shape.head_dim != c.shape.head_dim) {
    std::fprintf(stderr, "round trip changed the config: %s vs %s\n", c.freq.describe().c_str(),
                 back.freq.describe().c_str());
    std::abort();
  }
  return 0;
}
