// SPDX-License-Identifier: MIT
// The fast exact reference's frequencies on BoundedReal, and their
// per-thread cache by (frequency spec, rotary dim).
#include "reference/fast_frequencies.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <initializer_list>

#include "reference/bounded_real.h"
#include "reference/checked_rounding.h"
#include "reference/fast_internal.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::ref {
namespace {

// Slots per thread, each holding one (spec, rotary dim): a slot is picked
// by the key's hash, so a lookup costs one hash and one comparison
// whatever the size. libFuzzer's mutations return to the specs of its
// corpus inputs again and again; a few hundred specs per thread cost a
// few hundred KiB at most.
constexpr std::size_t kSlots = 1024;

std::uint64_t word(double v) { return std::bit_cast<std::uint64_t>(v); }

void append(const std::vector<double>& v, std::vector<std::uint64_t>* key) {
  key->push_back(v.size());
  for (const double x : v) key->push_back(word(x));
}

std::size_t hash_of(const std::vector<std::uint64_t>& key) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;  // FNV-1a-like mixing of whole words
  for (const std::uint64_t w : key) h = (h ^ w) * 0x100000001b3ull ^ (h >> 29);
  return static_cast<std::size_t>(h);
}

// A direct-mapped cache of one value type per thread.
template <class V>
struct SpecCache {
  struct Slot {
    std::vector<std::uint64_t> key;
    std::shared_ptr<const V> value;
  };
  std::vector<Slot> slots = std::vector<Slot>(kSlots);

  template <class Compute>
  std::shared_ptr<const V> get(const FreqSpec& spec, int rotary_dim, Compute compute) {
    std::vector<std::uint64_t> key = freq_key(spec, rotary_dim);
    Slot& s = slots[hash_of(key) % kSlots];
    if (s.value && s.key == key) return s.value;
    auto value = std::make_shared<const V>(compute());  // may throw: the slot is left as it was
    s.key = std::move(key);
    s.value = value;
    return value;
  }
};

// RN(v), when the radius decides it (an exact zero keeps its sign).
bool decide(const BoundedReal& v, FastValue* fv, double* d) {
  *fv = {v.hi(), v.lo(), v.rad()};
  *d = v.hi();
  if (exactly_equal(v.hi(), 0.0) && exactly_equal(v.lo(), 0.0) && !(v.rad() > 0)) return true;
  return std::fabs(v.hi()) >= kMinCheckedValue && std::fabs(v.hi()) <= 0x1p1000 &&
         value_checked(v.hi(), v.lo(), v.rad());
}

}  // namespace

std::vector<std::uint64_t> freq_key(const FreqSpec& f, int rotary_dim) {
  // Every field of FreqSpec is either read by compute_frequencies
  // (frequencies.h) for some scheme, and then in that scheme's key, or
  // not read: one added there must be added here too, or two specs
  // differing only in it would share frequencies.
#if defined(__x86_64__) || defined(__aarch64__)
  static_assert(sizeof(FreqSpec) == 184, "FreqSpec changed: add its new field to freq_key");
#endif
  // Read by every scheme: m is the attention factor when one is given.
  std::vector<std::uint64_t> key = {static_cast<std::uint64_t>(rotary_dim), static_cast<std::uint64_t>(f.scheme),
                                    f.attention_factor.has_value(), word(f.attention_factor.value_or(0.0))};
  // Only the fields the scheme's formulas read (compute_frequencies'
  // switches): the case generator draws base and original_max_position
  // for every scheme, and libFuzzer's mutations of the bytes behind a field
  // the scheme ignores made a new key, and a miss, for the same frequencies.
  const auto add = [&](std::initializer_list<std::uint64_t> words) { key.insert(key.end(), words); };
  switch (f.scheme) {
    case ROPECHECK_SCHEME_DEFAULT:
      add({word(f.base)});
      break;
    case ROPECHECK_SCHEME_LINEAR:
    case ROPECHECK_SCHEME_NTK_AWARE:
      add({word(f.base), word(f.factor)});
      break;
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      add({word(f.base), word(f.factor), static_cast<std::uint64_t>(f.seq_len),
           static_cast<std::uint64_t>(f.original_max_position)});
      break;
    case ROPECHECK_SCHEME_YARN:
      add({word(f.base), word(f.factor), static_cast<std::uint64_t>(f.original_max_position), word(f.beta_fast),
           word(f.beta_slow), f.truncate, word(f.mscale), word(f.mscale_all_dim)});
      break;
    case ROPECHECK_SCHEME_LLAMA3:
      add({word(f.base), word(f.factor), static_cast<std::uint64_t>(f.original_max_position),
           word(f.low_freq_factor), word(f.high_freq_factor)});
      break;
    case ROPECHECK_SCHEME_LONGROPE: {
      // seq_len only picks the factors (long past original_max_position).
      const bool long_ctx = f.seq_len > f.original_max_position;
      add({word(f.base), word(f.factor), static_cast<std::uint64_t>(f.original_max_position), long_ctx});
      append(long_ctx ? f.long_factor : f.short_factor, &key);
      break;
    }
    case ROPECHECK_SCHEME_EXPLICIT:
      append(f.inv_freq, &key);
      break;
    default:
      // A scheme this key does not know: every field, as before.
      add({word(f.base), word(f.factor), static_cast<std::uint64_t>(f.original_max_position),
           static_cast<std::uint64_t>(f.seq_len), word(f.beta_fast), word(f.beta_slow), f.truncate, word(f.mscale),
           word(f.mscale_all_dim), word(f.low_freq_factor), word(f.high_freq_factor)});
      append(f.short_factor, &key);
      append(f.long_factor, &key);
      append(f.inv_freq, &key);
      break;
  }
  return key;
}

FastFrequencies compute_fast_frequencies(const FreqSpec& spec, int rotary_dim) {
  FastFrequencies out;
  try {
    // The same formulas as the MPFR path (frequencies.h), on BoundedReal.
    const Frequencies<BoundedReal> f = compute_frequencies<BoundedReal>(spec, rotary_dim);
    out.w.resize(f.inv_freq.size());
    out.w_d.resize(f.inv_freq.size());
    for (std::size_t i = 0; i < f.inv_freq.size(); ++i)
      if (!decide(f.inv_freq[i], &out.w[i], &out.w_d[i])) return out;
    out.ok = decide(f.attention_factor, &out.m, &out.m_d);
  } catch (const Undecided&) {
    out.ok = false;
  }
  return out;
}

std::shared_ptr<const FastFrequencies> cached_fast_frequencies(const FreqSpec& spec, int rotary_dim) {
  thread_local SpecCache<FastFrequencies> cache;
  return cache.get(spec, rotary_dim, [&] { return compute_fast_frequencies(spec, rotary_dim); });
}

std::shared_ptr<const ExactFrequencies> cached_exact_frequencies(const FreqSpec& spec, int rotary_dim) {
  thread_local SpecCache<ExactFrequencies> cache;
  return cache.get(spec, rotary_dim, [&] { return ExactFrequencies(compute_frequencies<Real>(spec, rotary_dim)); });
}

}  // namespace ropecheck::ref
