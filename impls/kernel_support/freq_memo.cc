// SPDX-License-Identifier: MIT
// The definitions of impls/kernel_support/freq_memo.h.
#include "impls/kernel_support/freq_memo.h"

#include <cstring>

namespace ropecheck::impl {
namespace {

// Bitwise, so NaN equals itself and -0 differs from +0: a memo hit must give
// exactly what a recomputation would.
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

bool same_array(const double* given, const std::vector<double>& kept, int n) {
  if (given == nullptr) return kept.empty();
  return !kept.empty() && std::memcmp(given, kept.data(), sizeof(double) * static_cast<std::size_t>(n)) == 0;
}

std::vector<double> copy_array(const double* p, int n) { return p ? std::vector<double>(p, p + n) : std::vector<double>(); }

}  // namespace

bool FreqMemo::same(const ropecheck_freq_spec_t& s, int d) const {
  const ropecheck_freq_spec_t& k = spec_;
  const int pairs = d / 2;
  return valid_ && d == rotary_dim_ && same_bits(s.scheme, k.scheme) && same_bits(s.base, k.base) &&
         same_bits(s.factor, k.factor) && same_bits(s.original_max_position, k.original_max_position) &&
         same_bits(s.seq_len, k.seq_len) && same_bits(s.beta_fast, k.beta_fast) &&
         same_bits(s.beta_slow, k.beta_slow) && same_bits(s.truncate, k.truncate) &&
         same_bits(s.has_attention_factor, k.has_attention_factor) &&
         same_bits(s.attention_factor, k.attention_factor) && same_bits(s.mscale, k.mscale) &&
         same_bits(s.mscale_all_dim, k.mscale_all_dim) && same_bits(s.low_freq_factor, k.low_freq_factor) &&
         same_bits(s.high_freq_factor, k.high_freq_factor) && same_array(s.short_factor, short_factor_, pairs) &&
         same_array(s.long_factor, long_factor_, pairs) && same_array(s.inv_freq, inv_freq_, pairs);
}

const EngineFreqs<double>& FreqMemo::get(const ropecheck_freq_spec_t& spec, int rotary_dim, bool* changed) {
  const bool hit = same(spec, rotary_dim);
  if (!hit) {
    const int pairs = rotary_dim / 2;
    freqs_ = engine_frequencies<double>(spec, rotary_dim);
    spec_ = spec;
    rotary_dim_ = rotary_dim;
    short_factor_ = copy_array(spec.short_factor, pairs);
    long_factor_ = copy_array(spec.long_factor, pairs);
    inv_freq_ = copy_array(spec.inv_freq, pairs);
    valid_ = true;
  }
  if (changed) *changed = !hit;
  return freqs_;
}

}  // namespace ropecheck::impl
