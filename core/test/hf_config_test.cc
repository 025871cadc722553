// SPDX-License-Identifier: MIT
// config_to_hf_json is the inverse of parse_rope_config for the Hugging
// Face form: every scheme transformers names, with every parameter the case
// generator draws, reads back to the same config (the Python module hands it
// to kernels written against transformers).
#include <gtest/gtest.h>

#include "core/cases/cases.h"
#include "core/config/hf_config.h"

namespace ropecheck {
namespace {

TEST(HfConfig, EveryDrawnConfigRoundTrips) {
  int checked = 0;
  for (int i = 0; i < 400; ++i) {
    const Case c = make_case(Suite::kStandard, 11, i);
    RopeConfig cfg;
    cfg.freq = c.freq;
    cfg.shape = c.shape;
    const auto hf = config_to_hf_json(cfg);
    if (c.freq.scheme == ROPECHECK_SCHEME_EXPLICIT) {
      EXPECT_FALSE(hf) << "transformers has no rope_type for explicit frequencies";
      continue;
    }
    ASSERT_TRUE(hf) << c.describe();
    const RopeConfig back = parse_rope_config(*hf);
    // Dynamic NTK's sequence length is a run-time value, not a config field.
    ref::FreqSpec want = cfg.freq;
    if (want.scheme == ROPECHECK_SCHEME_DYNAMIC_NTK || want.scheme == ROPECHECK_SCHEME_LONGROPE) want.seq_len = 0;
    EXPECT_EQ(back.freq.describe(), want.describe()) << *hf;
    EXPECT_EQ(back.shape.head_dim, cfg.shape.head_dim) << *hf;
    EXPECT_EQ(back.shape.rotary_dim, cfg.shape.rotary_dim) << *hf;
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

TEST(HfConfig, PartialRotaryFactorSurvivesTransformersTruncation) {
  // int(100 * 0.58) is 57 in binary64: the writer picks the next double up.
  RopeConfig c;
  c.shape = {100, 58};
  const RopeConfig back = parse_rope_config(*config_to_hf_json(c));
  EXPECT_EQ(back.shape.rotary_dim, 58);
}

}  // namespace
}  // namespace ropecheck
