// SPDX-License-Identifier: MIT
// A model's whole RoPE from its config.json (issue #21): one RopeConfig per
// layer type (Gemma 3's sliding layers rotate with rope_local_base_freq and
// no scaling, its full layers with rope_theta and the linear factor; a
// Transformers v5 rope_parameters dict keyed by layer type gives one entry
// per type), the layers that apply no RoPE (Llama 4's NoPE layers), and the
// top-level fields read as not affecting RoPE. A field inside the rope
// section that ropecheck does not understand is a ConfigError naming it.
#ifndef ROPECHECK_CORE_CONFIG_MODEL_ROPE_H_
#define ROPECHECK_CORE_CONFIG_MODEL_ROPE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/config.h"

namespace ropecheck {

struct LayerTypeRope {
  // The layer type as the config names it ("full_attention",
  // "sliding_attention"); types with the same RoPE are one entry, their
  // names joined by '+'; "all" when the config states no layer types.
  std::string name;
  RopeConfig config;
  std::vector<int> layers;  // 0-based layer indices; empty when the layer count is not stated
};

struct ModelRope {
  std::string model_type;  // "" when the config states none
  int num_layers = 0;      // num_hidden_layers, 0 when not stated
  std::vector<LayerTypeRope> layer_types;  // in order of their first layer
  std::vector<int> nope_layers;            // layers that apply no RoPE
  std::int64_t max_position = 0;          // max_position_embeddings (ChatGLM: seq_length), 0 when not stated
  int q_heads = 0, kv_heads = 0;           // stated head counts, 0 when not stated
  std::vector<std::string> ignored;        // fields read as not affecting RoPE, by JSON path
};

// Throws ConfigError naming the field (with its JSON path) and the bound;
// every layer type's config is validated.
ModelRope parse_model_rope(std::string_view json);
ModelRope read_model_rope_file(const std::string& path);

// The configs the gate cycles through (case i uses variant i % n): every
// layer type, and for a scheme that switches on the sequence length
// (LongRoPE's short/long factors at seq_len > L, dynamic NTK's base beyond
// L) seq_len at L - 1, L and L + 1 (the boundary the Phi-3 `<` vs `<=` bug
// sits on: unsloth PR #10681, vLLM PR #27431) and at the model's max context.
std::vector<RopeConfig> config_variants(const ModelRope& m);
// "sliding_attention: default(base=10000) on layers 0-4, 6-10, ...": one line per layer type.
std::string describe_model_rope(const ModelRope& m);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CONFIG_MODEL_ROPE_H_
