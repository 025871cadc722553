// SPDX-License-Identifier: MIT
// FreqMemo: a memo hit must give exactly what a recomputation gives. Every
// field of the spec, every element of its arrays (changed in place, in the
// caller's own buffer) and rotary_dim is changed one at a time: the memo
// must notice and return engine_frequencies of the new spec bit for bit; the
// same spec again must be a hit.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/freq_memo.h"

namespace ropecheck::impl {
namespace {

bool same_bits(const EngineFreqs<double>& a, const EngineFreqs<double>& b) {
  return a.inv_freq.size() == b.inv_freq.size() &&
         std::memcmp(a.inv_freq.data(), b.inv_freq.data(), a.inv_freq.size() * sizeof(double)) == 0 &&
         std::memcmp(&a.attention_factor, &b.attention_factor, sizeof(double)) == 0;
}

TEST(FreqMemo, NoticesEveryFieldAndArrayElementAndRotaryDim) {
  constexpr int kDim = 16;
  std::vector<double> short_f(kDim / 2, 1.25), long_f(kDim / 2, 3.5), inv(kDim / 2, 0.01);
  ropecheck_freq_spec_t s{};
  s.scheme = ROPECHECK_SCHEME_LONGROPE;
  s.base = 10000;
  s.factor = 32;
  s.original_max_position = 4096;
  s.seq_len = 8192;
  s.beta_fast = 32;
  s.beta_slow = 1;
  s.truncate = 1;
  s.low_freq_factor = 1;
  s.high_freq_factor = 4;
  s.short_factor = short_f.data();
  s.long_factor = long_f.data();
  int dim = kDim;
  FreqMemo memo;
  bool changed = false;
  auto expect_fresh = [&](const std::string& what, bool must_change) {
    const EngineFreqs<double>& got = memo.get(s, dim, &changed);
    EXPECT_EQ(changed, must_change) << what;
    EXPECT_TRUE(same_bits(got, engine_frequencies<double>(s, dim))) << what;
    memo.get(s, dim, &changed);
    EXPECT_FALSE(changed) << what << ", asked again";
  };
  expect_fresh("first call", true);
  // One change at a time; every scheme reads a different subset of the
  // fields, so the memo must compare them all whatever the scheme.
  const std::vector<std::pair<std::string, std::function<void()>>> edits = {
      {"scheme", [&] { s.scheme = ROPECHECK_SCHEME_YARN; }},
      {"base", [&] { s.base = 500000; }},
      {"factor", [&] { s.factor = 8; }},
      {"original_max_position", [&] { s.original_max_position = 8192; }},
      {"seq_len", [&] { s.seq_len = 100; }},
      {"beta_fast", [&] { s.beta_fast = 16; }},
      {"beta_slow", [&] { s.beta_slow = 2; }},
      {"truncate", [&] { s.truncate = 0; }},
      {"has_attention_factor", [&] { s.has_attention_factor = 1; }},
      {"attention_factor", [&] { s.attention_factor = 0.5; }},
      {"mscale", [&] { s.mscale = 0.707; }},
      {"mscale_all_dim", [&] { s.mscale_all_dim = 0.707; }},
      {"scheme back", [&] { s.scheme = ROPECHECK_SCHEME_LLAMA3; }},
      {"low_freq_factor", [&] { s.low_freq_factor = 2; }},
      {"high_freq_factor", [&] { s.high_freq_factor = 8; }},
      {"scheme LongRoPE", [&] { s.scheme = ROPECHECK_SCHEME_LONGROPE; }},
      {"short_factor[3] in place", [&] { short_f[3] = 1.5; }},
      {"long_factor[7] in place", [&] { long_f[7] = 4.0; }},
      {"long_factor -> null", [&] { s.long_factor = nullptr; }},
      {"long_factor back", [&] { s.long_factor = long_f.data(); }},
      {"scheme explicit", [&] {
         s.scheme = ROPECHECK_SCHEME_EXPLICIT;
         s.inv_freq = inv.data();
       }},
      {"inv_freq[0] in place", [&] { inv[0] = 0.02; }},
      {"inv_freq[0] -> +0", [&] { inv[0] = 0.0; }},
      {"inv_freq[0] -> -0", [&] { inv[0] = -0.0; }},
      {"rotary_dim", [&] { dim = kDim - 2; }},
  };
  for (const auto& [what, edit] : edits) {
    edit();
    expect_fresh(what, true);
  }
}

// A field added to the ABI's spec must be compared by FreqMemo::same too.
TEST(FreqMemo, KnowsEveryFieldOfTheSpec) {
  EXPECT_EQ(sizeof(ropecheck_freq_spec_t), 128u)
      << "ropecheck_freq_spec_t changed: compare the new field in FreqMemo::same, then update this size";
}

}  // namespace
}  // namespace ropecheck::impl
