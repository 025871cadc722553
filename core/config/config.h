// SPDX-License-Identifier: MIT
// Rope configurations from JSON, so a user checks the config their model
// actually ships. Accepted forms:
//   - a Hugging Face model config (config.json): rope_theta, head_dim (or
//     hidden_size / num_attention_heads), partial_rotary_factor or
//     rotary_dim / rotary_pct, max_position_embeddings, and a rope_scaling or
//     rope_parameters dict with rope_type (or type) and its fields;
//   - that rope_scaling / rope_parameters dict alone (plus head_dim);
//   - ropecheck's own schema: {"ropecheck_config": 1, "head_dim": ...,
//     "rotary_dim": ..., "layout": ..., "scheme": ..., and the FreqSpec fields
//     by name}.
// Any input gives a validated config or a ConfigError naming the field (with
// its JSON path) and the bound; never a crash.
#ifndef ROPECHECK_CORE_CONFIG_CONFIG_H_
#define ROPECHECK_CORE_CONFIG_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>

#include "ropecheck/kernel_abi.h"
#include "reference/axis_spec.h"
#include "reference/freq_spec.h"

namespace ropecheck {

struct RopeConfig {
  ref::FreqSpec freq;
  ref::HeadShape shape;
  std::optional<ropecheck_layout_t> layout;  // stated by our schema or GPT-J/NeoX hints
  // False for a bare rope_scaling dict, which states no head geometry: the
  // shape above is then nominal (kNominalHeadDim, or twice the length of
  // LongRoPE's factor lists), used where a case's own shape cannot take
  // the scheme (apply_config).
  bool shape_stated = true;
  // Multi-axis RoPE of the model (ABI 1.3): M-RoPE from rope_scaling's
  // mrope_section (Qwen2-VL), interleaved with mrope_interleaved (Qwen3-VL);
  // num_axes 0 for 1D RoPE.
  ref::AxisSpec axes;
};

inline constexpr int kNominalHeadDim = 128;

// Inputs larger than this are refused before parsing (a config is a few KiB).
inline constexpr std::size_t kMaxConfigBytes = 1 << 20;

// Throws ConfigError for the content (field and bound named), and
// FileReadError (core/io/file_read.h) when the path is a directory, a file or
// device larger than kMaxConfigBytes, a silent FIFO, or unreadable.
RopeConfig read_rope_config_file(const std::string& path);
RopeConfig parse_rope_config(std::string_view json);
// A case's scheme and shape under a config: the config's shape when it
// states one; else the case's own, unless the scheme cannot apply to it
// (NTK with rotary_dim < 4, LongRoPE's per-pair lists), then the nominal one.
void apply_config(const RopeConfig& config, ref::FreqSpec* freq, ref::HeadShape* shape);
// ropecheck's own schema, which parse_rope_config reads back to the same config.
std::string config_to_json(const RopeConfig& c);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CONFIG_CONFIG_H_
