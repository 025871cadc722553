// SPDX-License-Identifier: MIT
// Every invalid config is rejected with an error that names the field and
// the bound it broke.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "reference/freq_spec.h"

namespace ropecheck::ref {
namespace {

struct Bad {
  const char* what;
  std::function<void(FreqSpec&, HeadShape&)> mutate;
  const char* field;
  const char* bound;  // a fragment the message must contain
};

FreqSpec yarn() {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.factor = 8;
  f.original_max_position = 4096;
  return f;
}

TEST(ReferenceConfig, InvalidConfigsNameFieldAndBound) {
  const Bad cases[] = {
      {"odd rotary_dim", [](FreqSpec&, HeadShape& s) { s.rotary_dim = 63; }, "rotary_dim", "even"},
      {"rotary_dim > head_dim", [](FreqSpec&, HeadShape& s) { s.rotary_dim = 256; }, "rotary_dim", "<= head_dim = 128"},
      {"head_dim 0", [](FreqSpec&, HeadShape& s) { s.head_dim = 0; }, "head_dim", "[1, 4096]"},
      {"head_dim > 4096", [](FreqSpec&, HeadShape& s) { s.head_dim = 4098; s.rotary_dim = 64; }, "head_dim", "[1, 4096]"},
      {"base <= 1", [](FreqSpec& f, HeadShape&) { f.base = 1.0; }, "base", "> 1"},
      {"base NaN", [](FreqSpec& f, HeadShape&) { f.base = NAN; }, "base", "finite"},
      {"factor 0", [](FreqSpec& f, HeadShape&) { f.factor = 0; }, "factor", "[0.001, 1000000]"},
      {"factor inf", [](FreqSpec& f, HeadShape&) { f.factor = INFINITY; }, "factor", "[0.001, 1000000]"},
      {"beta_fast <= beta_slow", [](FreqSpec& f, HeadShape&) { f.beta_fast = 1; }, "beta_fast", "> beta_slow"},
      {"attention_factor negative", [](FreqSpec& f, HeadShape&) { f.attention_factor = -1; }, "attention_factor", "[0.001, 1000]"},
      {"L 0", [](FreqSpec& f, HeadShape&) { f.original_max_position = 0; }, "original_max_position", "[1, 1099511627776]"},
      {"lf > hf", [](FreqSpec& f, HeadShape&) { f.scheme = ROPECHECK_SCHEME_LLAMA3; f.low_freq_factor = 4; f.high_freq_factor = 3; }, "high_freq_factor", ">= low_freq_factor"},
      {"longrope list length", [](FreqSpec& f, HeadShape&) { f.scheme = ROPECHECK_SCHEME_LONGROPE; f.short_factor.assign(63, 1.0); f.long_factor.assign(64, 1.0); }, "short_factor", "rotary_dim/2 = 64"},
      {"longrope entry", [](FreqSpec& f, HeadShape&) { f.scheme = ROPECHECK_SCHEME_LONGROPE; f.short_factor.assign(64, 1.0); f.long_factor.assign(64, 1.0); f.long_factor[5] = 0; }, "long_factor[5]", "[0.001, 1000000]"},
      {"explicit list", [](FreqSpec& f, HeadShape&) { f.scheme = ROPECHECK_SCHEME_EXPLICIT; f.inv_freq.assign(3, 1.0); }, "inv_freq", "rotary_dim/2 = 64"},
      {"ntk d=2", [](FreqSpec& f, HeadShape& s) { f.scheme = ROPECHECK_SCHEME_NTK_AWARE; s.rotary_dim = 2; }, "rotary_dim", ">= 4"},
      // Values that were accepted and gave a correct kernel a budget of NaN.
      {"factor 1e308", [](FreqSpec& f, HeadShape&) { f.factor = 1e308; }, "factor", "[0.001, 1000000]"},
      {"linear factor 1e-308", [](FreqSpec& f, HeadShape&) { f.scheme = ROPECHECK_SCHEME_LINEAR; f.factor = 1e-308; }, "factor", "[0.001, 1000000]"},
      {"rope_theta 1e308", [](FreqSpec& f, HeadShape&) { f.base = 1e308; }, "base", "<= 1000000000000"},
      {"inv_freq 1e308", [](FreqSpec& f, HeadShape&) { f.scheme = ROPECHECK_SCHEME_EXPLICIT; f.inv_freq.assign(64, 1.0); f.inv_freq[3] = 1e308; }, "inv_freq[3]", "[0, 10000]"},
      {"mscale huge", [](FreqSpec& f, HeadShape&) { f.mscale = 1e300; }, "mscale", "[0, 1000]"},
      {"beta_fast huge", [](FreqSpec& f, HeadShape&) { f.beta_fast = 1e300; }, "beta_fast", "<= 10000"},
      {"seq_len negative", [](FreqSpec& f, HeadShape&) { f.scheme = ROPECHECK_SCHEME_DYNAMIC_NTK; f.seq_len = -1; }, "seq_len", "[0, 1099511627776]"},
      // YaRN below 1 was accepted while dynamic NTK refused it.
      {"yarn factor 0.5", [](FreqSpec& f, HeadShape&) { f.factor = 0.5; }, "factor", ">= 1 for yarn"},
  };
  for (const Bad& b : cases) {
    FreqSpec f = yarn();
    HeadShape s{128, 128};
    b.mutate(f, s);
    try {
      validate(f, s);
      ADD_FAILURE() << b.what << ": accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), b.field) << b.what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(b.bound), std::string::npos) << b.what << ": " << e.what();
    }
  }
}

TEST(ReferenceConfig, ValidConfigsPassAndRoundTripThroughTheAbi) {
  FreqSpec f = yarn();
  f.mscale = 0.7;
  f.mscale_all_dim = 1.0;
  f.attention_factor = 1.1;
  EXPECT_NO_THROW(validate(f, {128, 128}));
  EXPECT_NO_THROW(validate(f, {97, 64}));  // odd head_dim with even rotary part
  FreqSpec lr;
  lr.scheme = ROPECHECK_SCHEME_LONGROPE;
  lr.factor = 32;
  lr.original_max_position = 4096;
  lr.short_factor.assign(4, 1.0);
  lr.long_factor.assign(4, 2.0);
  const auto abi = lr.to_abi();
  const FreqSpec back = FreqSpec::from_abi(abi, 8);
  EXPECT_EQ(back.long_factor, lr.long_factor);
  EXPECT_EQ(back.describe(), lr.describe());
}

}  // namespace
}  // namespace ropecheck::ref
