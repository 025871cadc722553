// SPDX-License-Identifier: MIT
// The reference reproduces published values (HF transformers'
// modeling_rope_utils.py formulas evaluated in float64, as that code prints
// them; the gpt-oss YaRN range of vLLM PR #28244) and the scheme
// definitions' exact identities.
#include <gtest/gtest.h>

#include <cmath>

#include "reference/frequencies.h"

namespace ropecheck::ref {
namespace {

double d(const Real& r) { return r.convert_to<double>(); }

// Published values are float64 prints: agree to within 1 ulp of double.
void expect_double_close(const Real& got, double published) {
  EXPECT_NEAR(d(got), published, std::fabs(published) * 0x1p-52) << "published " << published;
}

TEST(ReferenceFrequencies, DefaultMatchesPublishedAnchors) {
  FreqSpec f;  // default, base 1e4
  const auto fr = compute_frequencies<Real>(f, 128);
  expect_double_close(fr.inv_freq[1], 0.8659643233600653);
  EXPECT_EQ(fr.inv_freq[16], Real(1) / 10) << "w_16 = 1e4^(-1/4) = 0.1 exactly";
  expect_double_close(fr.inv_freq[63], 1.1547819846894582e-4);
  EXPECT_EQ(fr.inv_freq[0], Real(1));
  EXPECT_EQ(fr.attention_factor, Real(1));
}

TEST(ReferenceFrequencies, YarnTruncatedRangeAndAttentionFactor) {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.factor = 10;
  f.original_max_position = 2048;
  const auto range = yarn_correction_range<Real>(f, 128);
  EXPECT_EQ(range.low, Real(16));
  EXPECT_EQ(range.high, Real(41));
  const auto fr = compute_frequencies<Real>(f, 128);
  expect_double_close(fr.attention_factor, 1.2302585092994045);  // 0.1 ln 10 + 1
  // Above high the frequency is fully interpolated, below low untouched.
  EXPECT_EQ(fr.inv_freq[41], default_inv_freq(Real(10000), 41, 128) / 10);
  EXPECT_EQ(fr.inv_freq[16], default_inv_freq(Real(10000), 16, 128));
  EXPECT_EQ(fr.inv_freq[3], default_inv_freq(Real(10000), 3, 128));
}

TEST(ReferenceFrequencies, YarnUntruncatedGptOssRange) {
  // gpt-oss: d=64, b=150000, s=32, L=4096, truncate=false (vLLM PR #28244).
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.base = 150000;
  f.factor = 32;
  f.original_max_position = 4096;
  f.truncate = false;
  const auto range = yarn_correction_range<Real>(f, 64);
  expect_double_close(range.low, 8.092779115512402);
  expect_double_close(range.high, 17.39802450158856);
}

TEST(ReferenceFrequencies, YarnMscaleRatioAndExplicitFactor) {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.factor = 40;
  f.original_max_position = 4096;
  f.mscale = 1.0;
  f.mscale_all_dim = 1.0;  // DeepSeek-V3: ratio of equal g() is exactly 1
  EXPECT_EQ(compute_frequencies<Real>(f, 64).attention_factor, Real(1));
  f.mscale = 0.707;
  const Real g1 = Real(1) / 10 * Real(0.707) * log(Real(40)) + 1;
  const Real g2 = Real(1) / 10 * log(Real(40)) + 1;
  EXPECT_EQ(compute_frequencies<Real>(f, 64).attention_factor, g1 / g2);
  f.attention_factor = 0.5;  // explicit wins over everything
  EXPECT_EQ(compute_frequencies<Real>(f, 64).attention_factor, Real(0.5));
}

// Llama 3.1's scheme on base 5e5 and L 8192 (both Llama 3.1 and Llama 4
// Scout publish these), with the factor and band factors given.
FreqSpec llama3_on_5e5(double factor, double low_freq_factor, double high_freq_factor) {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_LLAMA3;
  f.base = 500000;
  f.factor = factor;
  f.original_max_position = 8192;
  f.low_freq_factor = low_freq_factor;
  f.high_freq_factor = high_freq_factor;
  return f;
}

TEST(ReferenceFrequencies, Llama31Bands) {
  // b=5e5, s=8, lf=1, hf=4, L=8192, d=128 (Llama 3.1's published config):
  // wavelengths 2 pi b^(2i/d) below L/hf = 2048 are kept (pairs 0..28),
  // above L/lf = 8192 divided by s (pairs 35..), blended between.
  const auto fr = compute_frequencies<Real>(llama3_on_5e5(8, 1, 4), 128);
  for (int i = 0; i < 64; ++i) {
    const Real w = default_inv_freq(Real(500000), i, 128);
    if (i <= 28) {
      EXPECT_EQ(fr.inv_freq[i], w) << i;
    } else if (i <= 34) {
      EXPECT_LT(fr.inv_freq[i], w) << i;
      EXPECT_GT(fr.inv_freq[i], w / 8) << i;
    } else {
      EXPECT_EQ(fr.inv_freq[i], w / 8) << i;
    }
  }
}

TEST(ReferenceFrequencies, Llama3WithEqualFactorsHasNoBlendBand) {
  // Llama 4 Scout's rope_scaling: factor 16, low_freq_factor ==
  // high_freq_factor == 1, L 8192, base 5e5 (vllm-project/tpu-inference
  // tpu_inference/models/jax/llama4.py @a523939d, citing the model's
  // config.json). 2 pi b^(2i/128) is 6695 at pair 34 and 8219 at pair 35:
  // pairs 0..34 keep w, pairs 35.. take w / 16, none is blended.
  const auto fr = compute_frequencies<Real>(llama3_on_5e5(16, 1, 1), 128);
  for (int i = 0; i < 64; ++i) {
    const Real w = default_inv_freq(Real(500000), i, 128);
    EXPECT_EQ(fr.inv_freq[i], i <= 34 ? w : Real(w / 16)) << i;
  }
}

TEST(ReferenceFrequencies, DynamicNtkPublishedAndBelowLengthIsDefault) {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_DYNAMIC_NTK;
  f.factor = 10;
  f.original_max_position = 2048;
  f.seq_len = 16384;
  expect_double_close(compute_frequencies<Real>(f, 128).inv_freq[1], 0.8093100748915147);
  f.seq_len = 2048;  // n = max(seq_len, L) = L: bracket is exactly 1
  const auto fr = compute_frequencies<Real>(f, 128);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(fr.inv_freq[i], default_inv_freq(Real(10000), i, 128));
}

TEST(ReferenceFrequencies, LinearAndNtkIdentities) {
  FreqSpec lin;
  lin.scheme = ROPECHECK_SCHEME_LINEAR;
  lin.factor = 4;
  FreqSpec ntk = lin;
  ntk.scheme = ROPECHECK_SCHEME_NTK_AWARE;
  const auto a = compute_frequencies<Real>(lin, 64);
  const auto b = compute_frequencies<Real>(ntk, 64);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(a.inv_freq[i], default_inv_freq(Real(10000), i, 64) / 4);
  // NTK keeps w_0 and divides the last frequency by exactly s:
  // (b s^(d/(d-2)))^(-(d-2)/d) = b^(-(d-2)/d) / s.
  EXPECT_EQ(b.inv_freq[0], Real(1));
  const Real last = default_inv_freq(Real(10000), 31, 64) / 4;
  EXPECT_LT(abs(b.inv_freq[31] - last) / last, Real(1e-35));
}

TEST(ReferenceFrequencies, LongRopeSwitchesStrictlyAboveOriginalLength) {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_LONGROPE;
  f.factor = 32;
  f.original_max_position = 4096;
  f.short_factor.assign(8, 1.0);
  f.long_factor.assign(8, 4.0);
  f.seq_len = 4096;  // not > L: short
  auto fr = compute_frequencies<Real>(f, 16);
  EXPECT_EQ(fr.inv_freq[2], default_inv_freq(Real(10000), 2, 16));
  f.seq_len = 4097;  // > L: long
  fr = compute_frequencies<Real>(f, 16);
  EXPECT_LT(abs(fr.inv_freq[2] - default_inv_freq(Real(10000), 2, 16) / 4), Real(1e-38));
  // sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12)
  EXPECT_LT(abs(fr.attention_factor - sqrt(Real(17) / 12)), Real(1e-38));
}

TEST(ReferenceFrequencies, PartialRotaryUsesRotaryDimInTheExponent) {
  FreqSpec f;
  const auto fr = compute_frequencies<Real>(f, 32);  // rotary_dim 32 of a larger head
  EXPECT_EQ(fr.inv_freq.size(), 16u);
  EXPECT_EQ(fr.inv_freq[8], Real(1) / 100);  // 1e4^(-16/32)
}

}  // namespace
}  // namespace ropecheck::ref
