// SPDX-License-Identifier: MIT
// The cache of the fast reference's frequencies (reference/fast_frequencies.h):
// every spec that differs from a cached one in a single field, or in the
// rotary dim, has another key and gets its own frequencies, equal bit for bit to an uncached
// computation; the same spec again gets the cached value itself.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reference/fast_frequencies.h"
#include "reference/fast_internal.h"

namespace ropecheck::ref {
namespace {

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

void expect_same(const FastFrequencies& got, const FastFrequencies& want, const std::string& what) {
  EXPECT_EQ(got.ok, want.ok) << what;
  EXPECT_EQ(bits(got.m_d), bits(want.m_d)) << what;
  EXPECT_EQ(bits(got.m.hi), bits(want.m.hi)) << what;
  EXPECT_EQ(bits(got.m.lo), bits(want.m.lo)) << what;
  EXPECT_EQ(bits(got.m.rad), bits(want.m.rad)) << what;
  ASSERT_EQ(got.w_d.size(), want.w_d.size()) << what;
  for (std::size_t i = 0; i < got.w_d.size(); ++i) {
    EXPECT_EQ(bits(got.w_d[i]), bits(want.w_d[i])) << what << " w_" << i;
    EXPECT_EQ(bits(got.w[i].hi), bits(want.w[i].hi)) << what << " w_" << i;
    EXPECT_EQ(bits(got.w[i].lo), bits(want.w[i].lo)) << what << " w_" << i;
    EXPECT_EQ(bits(got.w[i].rad), bits(want.w[i].rad)) << what << " w_" << i;
  }
}

// Whether two results differ anywhere (m or some w_i).
bool differ(const FastFrequencies& a, const FastFrequencies& b) {
  if (bits(a.m_d) != bits(b.m_d) || a.w_d.size() != b.w_d.size()) return true;
  for (std::size_t i = 0; i < a.w_d.size(); ++i)
    if (bits(a.w_d[i]) != bits(b.w_d[i])) return true;
  return false;
}

// A spec of each scheme whose every field the frequencies read.
FreqSpec yarn() {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.factor = 8;
  f.original_max_position = 4096;
  f.mscale = 1;
  f.mscale_all_dim = 1;
  return f;
}
FreqSpec llama3() {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_LLAMA3;
  f.base = 500000;
  f.factor = 8;
  f.original_max_position = 8192;
  return f;
}
FreqSpec linear() {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_LINEAR;
  f.factor = 4;
  return f;
}
FreqSpec longrope(int pairs, std::int64_t seq_len) {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_LONGROPE;
  f.factor = 16;
  f.original_max_position = 4096;
  f.seq_len = seq_len;  // past original_max_position: the long factors
  for (int i = 0; i < pairs; ++i) {
    f.short_factor.push_back(1.0 + i / 64.0);
    f.long_factor.push_back(2.0 + i / 8.0);
  }
  return f;
}

// One field changed, each a change the frequencies see.
struct Variant {
  std::string field;
  FreqSpec base;
  std::function<void(FreqSpec&)> change;
};

std::vector<Variant> variants() {
  return {
      {"scheme", linear(), [](FreqSpec& f) { f.scheme = ROPECHECK_SCHEME_NTK_AWARE; }},
      {"base", FreqSpec{}, [](FreqSpec& f) { f.base = 10001; }},
      {"factor", yarn(), [](FreqSpec& f) { f.factor = 16; }},
      {"original_max_position", yarn(), [](FreqSpec& f) { f.original_max_position = 2048; }},
      {"beta_fast", yarn(), [](FreqSpec& f) { f.beta_fast = 16; }},
      {"beta_slow", yarn(), [](FreqSpec& f) { f.beta_slow = 2; }},
      {"truncate", yarn(), [](FreqSpec& f) { f.truncate = false; }},
      {"attention_factor", yarn(), [](FreqSpec& f) { f.attention_factor = 1.25; }},
      {"mscale", yarn(), [](FreqSpec& f) { f.mscale = 0.5; }},
      {"mscale_all_dim", yarn(), [](FreqSpec& f) { f.mscale_all_dim = 0.5; }},
      {"low_freq_factor", llama3(), [](FreqSpec& f) { f.low_freq_factor = 2; }},
      {"high_freq_factor", llama3(), [](FreqSpec& f) { f.high_freq_factor = 8; }},
      {"seq_len", longrope(32, 8192), [](FreqSpec& f) { f.seq_len = 2048; }},
      {"short_factor", longrope(32, 2048), [](FreqSpec& f) { f.short_factor[31] = 1.5; }},
      {"long_factor", longrope(32, 8192), [](FreqSpec& f) { f.long_factor[31] = 3.5; }},
  };
}

TEST(FastFrequencyCache, EachFieldIsPartOfTheKey) {
  for (const Variant& v : variants()) {
    FreqSpec changed = v.base;
    v.change(changed);
    ASSERT_NE(freq_key(v.base, 64), freq_key(changed, 64)) << v.field;
    const auto before = cached_fast_frequencies(v.base, 64);
    const auto after = cached_fast_frequencies(changed, 64);
    expect_same(*after, compute_fast_frequencies(changed, 64), v.field);
    // Not a change the frequencies ignore: the test would prove nothing.
    EXPECT_TRUE(differ(*after, *before)) << v.field;
  }
}

TEST(FastFrequencyCache, TheMpfrFrequenciesAreKeyedAlike) {
  for (const Variant& v : variants()) {
    FreqSpec changed = v.base;
    v.change(changed);
    cached_exact_frequencies(v.base, 64);
    const auto got = cached_exact_frequencies(changed, 64);
    const Frequencies<Real> want = compute_frequencies<Real>(changed, 64);
    EXPECT_EQ(got->attention_factor, want.attention_factor) << v.field;
    ASSERT_EQ(got->inv_freq.size(), want.inv_freq.size()) << v.field;
    for (std::size_t i = 0; i < want.inv_freq.size(); ++i)
      EXPECT_EQ(got->inv_freq[i], want.inv_freq[i]) << v.field << " w_" << i;
  }
}

TEST(FastFrequencyCache, ExplicitFrequenciesAndRotaryDimArePartOfTheKey) {
  FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_EXPLICIT;
  f.inv_freq = {1.0, 0.5, 0.25, 0.125};
  const auto a = cached_fast_frequencies(f, 8);
  FreqSpec g = f;
  g.inv_freq[3] = 0.0625;
  expect_same(*cached_fast_frequencies(g, 8), compute_fast_frequencies(g, 8), "inv_freq");
  EXPECT_NE(bits(cached_fast_frequencies(g, 8)->w_d[3]), bits(a->w_d[3]));
  const FreqSpec d;
  const auto d64 = cached_fast_frequencies(d, 64);
  const auto d128 = cached_fast_frequencies(d, 128);
  expect_same(*d128, compute_fast_frequencies(d, 128), "rotary_dim");
  EXPECT_EQ(d64->w_d.size(), 32u);
  EXPECT_EQ(d128->w_d.size(), 64u);
}

// Fields a scheme's formulas do not read (the generator draws base and
// original_max_position for every scheme): a spec differing only in them
// shares the entry, and the entry is what computing it gives.
TEST(FastFrequencyCache, FieldsTheSchemeIgnoresAreNotPartOfTheKey) {
  struct Ignored {
    std::string field;
    FreqSpec base;
    std::function<void(FreqSpec&)> change;
  };
  FreqSpec explicit_spec;
  explicit_spec.scheme = ROPECHECK_SCHEME_EXPLICIT;
  explicit_spec.inv_freq.assign(32, 0.5);
  const std::vector<Ignored> ignored = {
      {"default original_max_position", FreqSpec{}, [](FreqSpec& f) { f.original_max_position = 4096; }},
      {"default factor", FreqSpec{}, [](FreqSpec& f) { f.factor = 8; }},
      {"linear beta_fast", linear(), [](FreqSpec& f) { f.beta_fast = 4; }},
      {"yarn low_freq_factor", yarn(), [](FreqSpec& f) { f.low_freq_factor = 2; }},
      {"llama3 seq_len", llama3(), [](FreqSpec& f) { f.seq_len = 100; }},
      {"longrope seq_len, the same side", longrope(32, 8192), [](FreqSpec& f) { f.seq_len = 8193; }},
      {"longrope short_factor past the switch", longrope(32, 8192), [](FreqSpec& f) { f.short_factor[3] = 1.5; }},
      {"explicit base", explicit_spec, [](FreqSpec& f) { f.base = 500000; }},
  };
  for (const Ignored& v : ignored) {
    FreqSpec changed = v.base;
    v.change(changed);
    EXPECT_EQ(freq_key(v.base, 64), freq_key(changed, 64)) << v.field;
    const auto before = cached_fast_frequencies(v.base, 64);
    const auto after = cached_fast_frequencies(changed, 64);
    EXPECT_EQ(before.get(), after.get()) << v.field;
    expect_same(*after, compute_fast_frequencies(changed, 64), v.field);
    const Frequencies<Real> want = compute_frequencies<Real>(changed, 64);
    const auto exact = cached_exact_frequencies(changed, 64);
    EXPECT_EQ(exact->attention_factor, want.attention_factor) << v.field;
    for (std::size_t i = 0; i < want.inv_freq.size(); ++i) EXPECT_EQ(exact->inv_freq[i], want.inv_freq[i]) << v.field;
  }
}

TEST(FastFrequencyCache, TheSameSpecAgainIsAHit) {
  const FreqSpec y = yarn();
  const auto first = cached_fast_frequencies(y, 96);
  cached_fast_frequencies(llama3(), 96);  // another spec between
  const auto again = cached_fast_frequencies(y, 96);
  EXPECT_EQ(first.get(), again.get());
  expect_same(*again, compute_fast_frequencies(y, 96), "yarn again");
}

TEST(FastFrequencyCache, MoreSpecsThanItHoldsStayCorrect) {
  // More specs than the cache's slots: some share a slot and push each
  // other out; every answer is still the spec's own.
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 1500; ++i) {
      FreqSpec f;
      f.base = 1000.0 + i;
      expect_same(*cached_fast_frequencies(f, 32), compute_fast_frequencies(f, 32), "base " + std::to_string(f.base));
    }
}

}  // namespace
}  // namespace ropecheck::ref
