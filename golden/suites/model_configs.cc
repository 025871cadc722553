// SPDX-License-Identifier: MIT
// Rope configurations of published models, written from the values their
// Hugging Face config.json files publish (only the fields RoPE reads).
// Layouts follow the model's reference implementation: GPT-J and DeepSeek
// (rope_interleave) pair adjacent channels, the HF Llama family rotate_half.
#include <cmath>
#include <string>

#include "golden/suites/suites.h"

namespace ropecheck::golden {
namespace {

// Phi-3's LongRoPE factor lists are searched per checkpoint (48 values
// each); we do not copy them. These lists have the published shape (short
// factors near 1 rising slowly, long factors rising to ~64 toward the
// low-frequency pairs) and are generated, so the case tests the mechanism
// (per-pair division, the short/long switch, the derived attention factor)
// but not the checkpoint's numbers. To check the real lists, pass the real
// config.json to `ropecheck check --config`.
std::string phi3_like_config() {
  std::string shortf, longf;
  for (int i = 0; i < 48; ++i) {
    const double t = i / 47.0;
    char a[40], b[40];
    std::snprintf(a, sizeof a, "%.4f", 1.0 + 0.05 * std::floor(20 * t * t) / 10);
    std::snprintf(b, sizeof b, "%.4f", 1.0 + std::floor(630 * t * t * t) / 10);
    shortf += (i ? ", " : "") + std::string(a);
    longf += (i ? ", " : "") + std::string(b);
  }
  return R"({"hidden_size": 3072, "num_attention_heads": 32, "num_key_value_heads": 32,
  "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
  "rope_scaling": {"type": "longrope", "short_factor": [)" + shortf + R"(], "long_factor": [)" + longf + "]}}";
}

}  // namespace

const std::vector<ModelConfig>& model_configs() {
  static const std::string phi3 = phi3_like_config();
  static const std::vector<ModelConfig> kModels = {
      {"Llama-2-7B", "meta-llama/Llama-2-7b-hf config.json", ROPECHECK_LAYOUT_HALF_SPLIT,
       R"({"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 32,
           "max_position_embeddings": 4096, "rope_theta": 10000.0, "rope_scaling": null})", 2, 2},
      {"Llama-3.1-8B", "meta-llama/Llama-3.1-8B config.json", ROPECHECK_LAYOUT_HALF_SPLIT,
       R"({"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
           "max_position_embeddings": 131072, "rope_theta": 500000.0,
           "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                            "original_max_position_embeddings": 8192, "rope_type": "llama3"}})", 4, 1},
      {"Mistral-7B-v0.1", "mistralai/Mistral-7B-v0.1 config.json", ROPECHECK_LAYOUT_HALF_SPLIT,
       R"({"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
           "max_position_embeddings": 32768, "rope_theta": 10000.0})", 4, 1},
      {"Qwen2-7B", "Qwen/Qwen2-7B config.json (rope_theta 1e6)", ROPECHECK_LAYOUT_HALF_SPLIT,
       R"({"hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
           "max_position_embeddings": 131072, "rope_theta": 1000000.0})", 7, 1},
      {"Pythia-1.4B", "EleutherAI/pythia-1.4b config.json (GPT-NeoX, rotary_pct 0.25)", ROPECHECK_LAYOUT_HALF_SPLIT,
       R"({"hidden_size": 2048, "num_attention_heads": 16, "rotary_pct": 0.25, "rotary_emb_base": 10000,
           "max_position_embeddings": 2048})", 2, 2},
      {"GPT-J-6B", "EleutherAI/gpt-j-6b config.json (rotary_dim 64 of head_dim 256, interleaved)",
       ROPECHECK_LAYOUT_INTERLEAVED,
       R"({"n_embd": 4096, "n_head": 16, "rotary_dim": 64, "n_positions": 2048})", 2, 2},
      {"Phi-3-mini-128k (factor lists generated)",
       "microsoft/Phi-3-mini-128k-instruct config.json: head_dim 96, theta 1e4, 4096 -> 131072; "
       "short/long factor lists generated with the same shape (see model_configs.cc)",
       ROPECHECK_LAYOUT_HALF_SPLIT, phi3.c_str(), 2, 2},
      {"DeepSeek-V3", "deepseek-ai/DeepSeek-V3 config.json (qk_rope_head_dim 64, YaRN s=40, mscale 1/1)",
       ROPECHECK_LAYOUT_INTERLEAVED,
       R"({"qk_rope_head_dim": 64, "max_position_embeddings": 163840, "rope_theta": 10000,
           "rope_interleave": true,
           "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0,
                            "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096, "type": "yarn"}})",
       4, 1},
      {"gpt-oss-20b", "openai/gpt-oss-20b config.json (YaRN s=32, truncate false)", ROPECHECK_LAYOUT_HALF_SPLIT,
       R"({"head_dim": 64, "max_position_embeddings": 131072, "rope_theta": 150000,
           "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                            "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": false}})",
       4, 1},
  };
  return kModels;
}

RopeConfig parse_model(const ModelConfig& m) { return parse_rope_config(m.config_json); }

}  // namespace ropecheck::golden
