// SPDX-License-Identifier: MIT
// A model's whole RoPE from its config.json (core/config/model_rope.h, issue #21):
// each layer type its own config, NoPE layers named, the v4 and v5 key
// layouts read to the same configs, unknown rope fields refused by name,
// other top-level fields listed as ignored, and the sequence-length
// boundaries of the schemes that switch on it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/model_rope.h"

namespace ropecheck {
namespace {

std::string field_of(const std::string& json) {
  try {
    parse_model_rope(json);
  } catch (const ref::ConfigError& e) {
    return e.field();
  }
  return "(accepted)";
}

// Gemma 3 as its config.json states it (Transformers v4: rope_scaling,
// rope_local_base_freq, sliding_window_pattern), and as Transformers v5
// states it (rope_parameters keyed by layer type, layer_types listed).
TEST(ModelRope, GemmaThreeLocalAndGlobalLayersInBothKeyLayouts) {
  const ModelRope v4 = parse_model_rope(R"({"model_type": "gemma3_text", "head_dim": 256, "num_hidden_layers": 12,
    "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "sliding_window_pattern": 6,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024, "vocab_size": 262208})");
  ASSERT_EQ(v4.layer_types.size(), 2u);
  EXPECT_EQ(v4.layer_types[0].name, "sliding_attention");
  EXPECT_EQ(v4.layer_types[0].config.freq.describe(), "default(base=10000)");
  EXPECT_EQ(v4.layer_types[0].layers, (std::vector<int>{0, 1, 2, 3, 4, 6, 7, 8, 9, 10}));
  EXPECT_EQ(v4.layer_types[1].name, "full_attention");
  EXPECT_EQ(v4.layer_types[1].config.freq.describe(), "linear(base=1000000,factor=8)");
  EXPECT_EQ(v4.layer_types[1].layers, (std::vector<int>{5, 11}));
  EXPECT_EQ(v4.ignored, (std::vector<std::string>{"sliding_window", "vocab_size"}));
  const ModelRope v5 = parse_model_rope(R"({"model_type": "gemma3_text", "head_dim": 256, "num_hidden_layers": 6,
    "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
                    "sliding_attention", "full_attention"],
    "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})");
  ASSERT_EQ(v5.layer_types.size(), 2u);
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(v5.layer_types[t].name, v4.layer_types[t].name);
    EXPECT_EQ(config_to_json(v5.layer_types[t].config), config_to_json(v4.layer_types[t].config));
  }
  EXPECT_EQ(config_variants(v5).size(), 2u);
  // One RopeConfig cannot say this: the single-config reader refuses it.
  EXPECT_EQ(field_of("x"), "json");
  try {
    parse_rope_config(R"({"head_dim": 256, "num_hidden_layers": 6, "rope_local_base_freq": 10000,
      "sliding_window_pattern": 6, "rope_theta": 1e6})");
    ADD_FAILURE() << "a two-layer-type model read as one config";
  } catch (const ref::ConfigError& e) {
    EXPECT_EQ(e.field(), "layer_types");
  }
}

// Layer types whose RoPE is the same (gpt-oss's sliding and full layers)
// are one set of cases.
TEST(ModelRope, LayerTypesWithTheSameRopeAreOneEntry) {
  const ModelRope m = parse_model_rope(R"({"head_dim": 64, "num_hidden_layers": 4, "rope_theta": 150000,
    "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]})");
  ASSERT_EQ(m.layer_types.size(), 1u);
  EXPECT_EQ(m.layer_types[0].name, "sliding_attention+full_attention");
  EXPECT_EQ(m.layer_types[0].layers.size(), 4u);
}

// Llama 4: a NoPE layer every no_rope_layer_interval (default 4) layers, or
// the layers no_rope_layers marks 0; text_config holds the language model.
// (The scaling fields here are Llama 3.1's, not Llama 4's, which this
// project has no citable copy of; see docs/ZOO.md.)
TEST(ModelRope, LlamaFourNamesItsNoPeLayers) {
  const ModelRope dflt = parse_model_rope(R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text",
    "head_dim": 128, "num_hidden_layers": 8, "rope_theta": 500000.0,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
    "vision_config": {"hidden_size": 1408}})");
  EXPECT_EQ(dflt.nope_layers, (std::vector<int>{3, 7}));
  ASSERT_EQ(dflt.layer_types.size(), 1u);
  EXPECT_EQ(dflt.layer_types[0].layers, (std::vector<int>{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(dflt.layer_types[0].config.layout, ROPECHECK_LAYOUT_INTERLEAVED);  // complex form
  EXPECT_EQ(dflt.ignored, (std::vector<std::string>{"vision_config"}));
  const ModelRope listed = parse_model_rope(
      R"({"head_dim": 128, "num_hidden_layers": 4, "no_rope_layers": [1, 0, 1, 1], "rope_theta": 500000.0})");
  EXPECT_EQ(listed.nope_layers, (std::vector<int>{1}));
  EXPECT_EQ(field_of(R"({"head_dim": 128, "num_hidden_layers": 2, "no_rope_layers": [1, 2]})"), "no_rope_layers[1]");
}

TEST(ModelRope, MropeSectionGivesTheModelsMultiAxisSections) {
  // Qwen2-VL-7B: head_dim 3584 / 28 = 128, rope_theta 1e6, rope_scaling
  // {"type": "mrope", "mrope_section": [16, 24, 24]} (arXiv:2409.12191; HF
  // configuration_qwen2_vl.py maps "mrope" to the default frequencies).
  const RopeConfig q2 = parse_rope_config(R"({"hidden_size": 3584, "num_attention_heads": 28,
      "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}})");
  EXPECT_EQ(q2.freq.scheme, ROPECHECK_SCHEME_DEFAULT);
  EXPECT_EQ(q2.axes.num_axes, 3);
  EXPECT_EQ(q2.axes.assignment, ROPECHECK_AXES_SECTIONS);
  EXPECT_EQ(q2.axes.sections, (std::vector<std::int32_t>{16, 24, 24}));
  // Qwen3-VL's interleaved form (modeling_qwen3_vl.py).
  const RopeConfig q3 = parse_rope_config(R"({"head_dim": 128, "rope_scaling": {"rope_type": "default",
      "mrope_section": [24, 20, 20], "mrope_interleaved": true}})");
  EXPECT_EQ(q3.axes.assignment, ROPECHECK_AXES_INTERLEAVED);
  // ropecheck's own schema keeps them.
  EXPECT_EQ(parse_rope_config(config_to_json(q3)).axes, q3.axes);
  // Sections that do not cover the rotary pairs, and the flag alone, name the field.
  EXPECT_EQ(field_of(R"({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 20]}})"),
            "rope_scaling.mrope_section");
  EXPECT_EQ(field_of(R"({"head_dim": 128, "rope_scaling": {"rope_type": "default", "mrope_interleaved": true}})"),
            "rope_scaling.mrope_interleaved");
}

TEST(ModelRope, AFieldInTheRopeSectionItDoesNotReadIsAnError) {
  EXPECT_EQ(field_of(R"({"head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": 2, "mrope_sections": [16]}})"),
            "rope_scaling.mrope_sections");
  EXPECT_EQ(field_of(R"({"text_config": {"head_dim": 64,
      "rope_parameters": {"rope_type": "yarn", "factor": 4, "short_mscale": 1.2}}})"),
            "text_config.rope_parameters.short_mscale");
  EXPECT_EQ(field_of(R"({"head_dim": 64, "num_hidden_layers": 1, "layer_types": ["full_attention"],
      "rope_parameters": {"full_attention": {"rope_type": "default", "theta": 1}}})"),
            "rope_parameters.full_attention.theta");
  EXPECT_EQ(field_of(R"({"head_dim": 64, "rope_parameters": {"rope_type": "default"}, "rope_scaling": null,
      "rope_theta": 1e4, "x": {"rope_type": 1}})"),
            "(accepted)");
  EXPECT_EQ(field_of(R"({"head_dim": 64, "rope_parameters": {"rope_type": "default"},
      "rope_scaling": {"rope_type": "default"}})"),
            "rope_scaling");
  EXPECT_EQ(field_of(R"({"hidden_size": 4544, "num_attention_heads": 71, "alibi": true})"), "alibi");
  EXPECT_EQ(field_of(R"({"head_dim": 64, "num_hidden_layers": 2, "layer_types": ["full_attention"]})"), "layer_types");
  EXPECT_EQ(field_of(R"({"head_dim": 64, "num_hidden_layers": 2, "layer_types": ["a", "b"],
      "rope_parameters": {"a": {"rope_type": "default"}}})"),
            "rope_parameters.b");
  EXPECT_EQ(field_of(R"({"head_dim": 64, "rope_local_base_freq": 10000})"), "rope_local_base_freq");
}

// Head geometry and pairing as the families state them.
TEST(ModelRope, PartialRotaryAndTheModelsLayout) {
  // Phi-4-mini: head 3072 / 24 = 128, partial_rotary_factor 0.75 -> 96.
  const RopeConfig phi4 = parse_rope_config(R"({"hidden_size": 3072, "num_attention_heads": 24,
    "partial_rotary_factor": 0.75, "rope_theta": 10000.0})");
  EXPECT_EQ(phi4.shape.head_dim, 128);
  EXPECT_EQ(phi4.shape.rotary_dim, 96);
  // Transformers v5 keeps partial_rotary_factor inside rope_parameters.
  const RopeConfig v5 = parse_rope_config(R"({"head_dim": 128,
    "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}})");
  EXPECT_EQ(v5.shape.rotary_dim, 64);
  // ChatGLM: kv_channels 128, RotaryEmbedding(kv_channels // 2), base 10000 * rope_ratio, interleaved.
  const ModelRope glm = parse_model_rope(R"({"model_type": "chatglm", "kv_channels": 128, "num_attention_heads": 32,
    "hidden_size": 4096, "multi_query_group_num": 2, "rope_ratio": 500, "seq_length": 131072, "original_rope": true})");
  const RopeConfig& g = glm.layer_types.at(0).config;
  EXPECT_EQ(g.shape.rotary_dim, 64);
  EXPECT_EQ(g.freq.describe(), "default(base=5000000)");
  EXPECT_EQ(g.layout, ROPECHECK_LAYOUT_INTERLEAVED);
  EXPECT_EQ(glm.kv_heads, 2);
  EXPECT_EQ(glm.max_position, 131072);
  // Cohere pairs adjacent channels; DeepSeek-V3 without rope_interleave too.
  EXPECT_EQ(parse_rope_config(R"({"model_type": "cohere", "head_dim": 128})").layout, ROPECHECK_LAYOUT_INTERLEAVED);
  EXPECT_EQ(parse_rope_config(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 64})").layout,
            ROPECHECK_LAYOUT_INTERLEAVED);
  EXPECT_FALSE(parse_rope_config(R"({"model_type": "llama", "head_dim": 128})").layout.has_value());
}

// LongRoPE and dynamic NTK switch on the sequence length: the variants put
// seq_len at L - 1, L, L + 1 and the max context.
TEST(ModelRope, SequenceLengthBoundariesOfTheSwitchingSchemes) {
  std::string lists = R"("short_factor": [1, 1], "long_factor": [2, 3])";
  const ModelRope phi = parse_model_rope(R"({"head_dim": 4, "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096, "rope_scaling": {"type": "longrope", )" + lists + "}}");
  std::vector<std::int64_t> seq;
  for (const RopeConfig& c : config_variants(phi)) seq.push_back(c.freq.seq_len);
  EXPECT_EQ(seq, (std::vector<std::int64_t>{4095, 4096, 4097, 131072}));
  const ModelRope dyn = parse_model_rope(
      R"({"head_dim": 128, "max_position_embeddings": 32768, "rope_scaling": {"type": "dynamic", "factor": 2.0}})");
  seq.clear();
  for (const RopeConfig& c : config_variants(dyn)) seq.push_back(c.freq.seq_len);
  EXPECT_EQ(seq, (std::vector<std::int64_t>{32767, 32768, 32769}));
  const ModelRope plain = parse_model_rope(R"({"head_dim": 128, "rope_theta": 1e6})");
  EXPECT_EQ(config_variants(plain).size(), 1u);
}

}  // namespace
}  // namespace ropecheck
