// SPDX-License-Identifier: MIT
// Rope configs from JSON: real model configs (their published rope fields)
// parse to the expected spec; malformed input gives an error naming the
// field with its JSON path; our own schema round-trips.
#include <gtest/gtest.h>

#include <string>

#include "core/config/config.h"

namespace ropecheck {
namespace {

TEST(ConfigJson, Llama31) {
  const RopeConfig c = parse_rope_config(R"({
    "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"}})");
  EXPECT_EQ(c.shape.head_dim, 128);
  EXPECT_EQ(c.shape.rotary_dim, 128);
  EXPECT_EQ(c.freq.scheme, ROPECHECK_SCHEME_LLAMA3);
  EXPECT_EQ(c.freq.describe(), "llama3(base=500000,factor=8,L=8192,lf=1,hf=4)");
}

TEST(ConfigJson, GptNeoXPartialAndGptJInterleaved) {
  const RopeConfig neox = parse_rope_config(
      R"({"hidden_size": 2048, "num_attention_heads": 8, "rotary_pct": 0.25, "rope_theta": 10000})");
  EXPECT_EQ(neox.shape.head_dim, 256);
  EXPECT_EQ(neox.shape.rotary_dim, 64);
  const RopeConfig gptj = parse_rope_config(R"({"n_embd": 4096, "head_dim": 256, "rotary_dim": 64})");
  EXPECT_EQ(gptj.shape.rotary_dim, 64);
  EXPECT_EQ(gptj.layout, ROPECHECK_LAYOUT_INTERLEAVED);
}

TEST(ConfigJson, YarnVariants) {
  // DeepSeek-V3 style: mscale ratio.
  const RopeConfig ds = parse_rope_config(R"({"head_dim": 64, "rope_theta": 10000, "max_position_embeddings": 163840,
    "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                     "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0}})");
  EXPECT_EQ(ds.freq.scheme, ROPECHECK_SCHEME_YARN);
  EXPECT_EQ(ds.freq.original_max_position, 4096);
  EXPECT_DOUBLE_EQ(ds.freq.mscale_all_dim, 1.0);
  // gpt-oss: truncate false, rope_parameters form with rope_theta inside.
  const RopeConfig oss = parse_rope_config(R"({"head_dim": 64,
    "rope_parameters": {"rope_type": "yarn", "rope_theta": 150000, "factor": 32,
                        "original_max_position_embeddings": 4096, "truncate": false}})");
  EXPECT_FALSE(oss.freq.truncate);
  EXPECT_DOUBLE_EQ(oss.freq.base, 150000);
}

TEST(ConfigJson, LongRopeDerivesItsFactorAndDynamicUsesMaxPositions) {
  std::string shorts = "[", longs = "[";
  for (int i = 0; i < 48; ++i) {
    shorts += std::string(i ? "," : "") + "1.0";
    longs += std::string(i ? "," : "") + "2.5";
  }
  shorts += "]";
  longs += "]";
  const RopeConfig phi = parse_rope_config(R"({"head_dim": 96, "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096, "rope_theta": 10000,
    "rope_scaling": {"type": "longrope", "short_factor": )" + shorts + R"(, "long_factor": )" + longs + "}}");
  EXPECT_EQ(phi.freq.scheme, ROPECHECK_SCHEME_LONGROPE);
  EXPECT_DOUBLE_EQ(phi.freq.factor, 32.0);
  const RopeConfig dyn = parse_rope_config(
      R"({"head_dim": 128, "max_position_embeddings": 2048, "rope_scaling": {"type": "dynamic", "factor": 2}})");
  EXPECT_EQ(dyn.freq.original_max_position, 2048);
}

TEST(ConfigJson, ErrorsNameTheFieldAndItsPath) {
  struct Bad {
    std::string json;
    const char* field;
  };
  const Bad bad[] = {
      {"[1, 2]", "json"},
      {"{", "json"},
      {R"({"head_dim": 128, "rope_scaling": {"type": "yarn", "factor": "big"}})", "rope_scaling.factor"},
      {R"({"head_dim": 128, "rope_scaling": {"rope_type": "magic"}})", "rope_scaling.rope_type"},
      {R"({"head_dim": 128.5})", "head_dim"},
      {R"({"head_dim": 0})", "head_dim"},
      {R"({"rope_theta": 10000})", "head_dim"},
      {R"({"head_dim": 128, "rope_theta": 0.5})", "base"},
      {R"({"head_dim": 128, "partial_rotary_factor": 1.5})", "partial_rotary_factor"},
      {R"({"head_dim": 128, "rope_scaling": {"type": "yarn", "factor": 4, "original_max_position_embeddings": 4096, "long_factor": [1, "x"]}})",
       "rope_scaling.long_factor[1]"},
      {R"({"ropecheck_config": 1, "head_dim": 64, "layout": "diagonal"})", "layout"},
      {R"({"head_dim": 64, "rope_scaling": {"type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings": 8192}})",
       "high_freq_factor"},
      // What one reader could take one way and another reader another, or
      // what was silently read as something the file does not say.
      {R"({"head_dim": 64, "head_dim": 128})", "head_dim"},  // nlohmann kept the last
      {R"({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 2, "factor": 4}})", "rope_scaling.factor"},
      {R"({"": 4.0, "": 1})", "\"\""},  // an empty key given twice still names its field (found by fuzzing)
      {R"({"rope_scaling": {"": 1, "": 2}})", "rope_scaling.\"\""},
      {std::string(R"({"head_dim": 64})") + '\0', "json"},  // a NUL after the JSON
      {R"({"head_dim": 64} {"head_dim": 32})", "json"},
      {R"({"head_dim": 64, "rope_scaling": {}})", "rope_scaling.rope_type"},  // read as default before
      {R"({"head_dim": 64, "rope_scaling": {"factor": 8}})", "rope_scaling.rope_type"},
      // A required factor left out became 1.
      {R"({"head_dim": 64, "rope_scaling": {"type": "yarn", "original_max_position_embeddings": 4096}})", "rope_scaling.factor"},
      {R"({"head_dim": 64, "rope_scaling": {"rope_type": "linear"}})", "rope_scaling.factor"},
      {R"({"head_dim": 64, "max_position_embeddings": 4096, "rope_scaling": {"type": "dynamic"}})", "rope_scaling.factor"},
      {R"({"ropecheck_config": 1, "head_dim": 64, "scheme": "llama3", "original_max_position": 8192})", "factor"},
      {R"({"head_dim": 64, "rope_scaling": {"type": "yarn", "factor": 0.5, "original_max_position_embeddings": 4096}})", "factor"},
      // Numbers beyond the bounds that keep the reference and budget finite.
      {R"({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 1e308}})", "factor"},
      {R"({"head_dim": 64, "rope_scaling": {"type": "linear", "factor": 1e-308}})", "factor"},
      {R"({"head_dim": 64, "rope_theta": 1e308})", "base"},
      {R"({"ropecheck_config": 1, "head_dim": 4, "scheme": "explicit", "inv_freq": [1, 1e308]})", "inv_freq[1]"},
  };
  for (const Bad& b : bad) {
    try {
      parse_rope_config(b.json);
      ADD_FAILURE() << "accepted: " << b.json;
    } catch (const ref::ConfigError& e) {
      EXPECT_EQ(e.field(), b.field) << b.json << " -> " << e.what();
    }
  }
  EXPECT_THROW(parse_rope_config(std::string(40, '[') + std::string(40, ']')), ref::ConfigError);
}

// The bare rope_scaling object --help advertises states no head shape: the
// cases keep theirs, unless the scheme cannot apply to them.
TEST(ConfigJson, TheBareRopeScalingDictIsAccepted) {
  const RopeConfig c = parse_rope_config(R"({"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4096})");
  EXPECT_FALSE(c.shape_stated);
  EXPECT_EQ(c.freq.scheme, ROPECHECK_SCHEME_YARN);
  ref::FreqSpec f;
  ref::HeadShape s{96, 64};
  apply_config(c, &f, &s);
  EXPECT_EQ(s.rotary_dim, 64);
  EXPECT_EQ(f.factor, 4);
  const RopeConfig ntk = parse_rope_config(R"({"type": "ntk", "factor": 2})");
  ref::HeadShape tiny{3, 2};  // NTK needs rotary_dim >= 4: the nominal shape instead
  apply_config(ntk, &f, &tiny);
  EXPECT_EQ(tiny.rotary_dim, kNominalHeadDim);
  const RopeConfig stated = parse_rope_config(R"({"head_dim": 80, "rope_theta": 10000})");
  ref::HeadShape other{96, 64};
  apply_config(stated, &f, &other);
  EXPECT_EQ(other.head_dim, 80);
}

TEST(ConfigJson, OwnSchemaRoundTrips) {
  RopeConfig c = parse_rope_config(R"({"head_dim": 128, "partial_rotary_factor": 0.5, "rope_theta": 1e6,
    "rope_scaling": {"type": "yarn", "factor": 4, "original_max_position_embeddings": 32768, "attention_factor": 1.1}})");
  c.layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  const RopeConfig back = parse_rope_config(config_to_json(c));
  EXPECT_EQ(back.freq.describe(), c.freq.describe());
  EXPECT_EQ(back.shape.rotary_dim, 64);
  EXPECT_EQ(back.layout, ROPECHECK_LAYOUT_HALF_SPLIT);
}

// Field names of the older and the MLA model families (GPT-J, GPT-NeoX,
// DeepSeek-V3), as their published config.json files spell them.
TEST(ConfigJson, ReadsGptJNeoXAndDeepSeekFieldNames) {
  const RopeConfig gptj = parse_rope_config(R"({"n_embd": 4096, "n_head": 16, "rotary_dim": 64})");
  EXPECT_EQ(gptj.shape.head_dim, 256);
  EXPECT_EQ(gptj.shape.rotary_dim, 64);
  EXPECT_EQ(gptj.layout, ROPECHECK_LAYOUT_INTERLEAVED);
  const RopeConfig neox = parse_rope_config(
      R"({"hidden_size": 2048, "num_attention_heads": 16, "rotary_pct": 0.25, "rotary_emb_base": 20000})");
  EXPECT_EQ(neox.shape.rotary_dim, 32);
  EXPECT_EQ(neox.freq.describe(), parse_rope_config(R"({"head_dim": 128, "rope_theta": 20000})").freq.describe());
  const RopeConfig ds = parse_rope_config(R"({"qk_rope_head_dim": 64, "head_dim": 192, "rope_interleave": true,
    "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096, "mscale": 1.0,
                     "mscale_all_dim": 1.0}})");
  EXPECT_EQ(ds.shape.head_dim, 64);  // only the rope part of an MLA head rotates
  EXPECT_EQ(ds.shape.rotary_dim, 64);
  EXPECT_EQ(ds.layout, ROPECHECK_LAYOUT_INTERLEAVED);
  try {
    parse_rope_config(R"({"n_embd": 100, "n_head": 16})");
    ADD_FAILURE() << "accepted n_embd not divisible by n_head";
  } catch (const ref::ConfigError& e) {
    EXPECT_EQ(e.field(), "n_embd");
  }
  EXPECT_THROW(parse_rope_config(R"({"head_dim": 64, "rope_interleave": "yes"})"), ref::ConfigError);
}

}  // namespace
}  // namespace ropecheck
