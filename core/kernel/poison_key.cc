// SPDX-License-Identifier: MIT
// The definitions of core/kernel/poison_key.h.
#include "core/kernel/poison_key.h"

#include <cstring>

namespace ropecheck {
namespace {

// Folds one word into the key: SplitMix64's finaliser over key ^ word, so
// every bit of every field reaches every bit of the key.
std::uint64_t fold(std::uint64_t key, std::uint64_t word) { return Rng::mix(key ^ word) + 0x2545f4914f6cdd1dull; }

}  // namespace

std::uint64_t poison_key(const Case& c, const char* impl_name, std::uint64_t salt) {
  std::uint64_t k = fold(0, salt);
  for (std::uint64_t w : {c.seed, static_cast<std::uint64_t>(c.index), c.data_seed,
                          static_cast<std::uint64_t>(c.suite), static_cast<std::uint64_t>(c.shape.head_dim),
                          static_cast<std::uint64_t>(c.shape.rotary_dim), static_cast<std::uint64_t>(c.layout),
                          static_cast<std::uint64_t>(c.dtype), static_cast<std::uint64_t>(c.direction),
                          static_cast<std::uint64_t>(c.tokens), static_cast<std::uint64_t>(c.q_heads),
                          static_cast<std::uint64_t>(c.kv_heads), static_cast<std::uint64_t>(c.in_place),
                          static_cast<std::uint64_t>(c.memory)})
    k = fold(k, w);
  // The first and last 64 positions (a derived case shifts or reorders them
  // all; a long case's middle adds cost, not distinction).
  const std::size_t np = c.positions.size();
  for (std::size_t i = 0; i < np; i = (i + 1 == 64 && np > 128) ? np - 64 : i + 1)
    k = fold(k, static_cast<std::uint64_t>(c.positions[i]));
  k = fold(k, np);
  // The name 8 bytes at a time (a plugin's name is the kernel's own string).
  const std::size_t n = impl_name ? std::strlen(impl_name) : 0;
  for (std::size_t i = 0; i < n; i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, impl_name + i, n - i < 8 ? n - i : 8);
    k = fold(k, w);
  }
  return fold(k, n);
}

}  // namespace ropecheck
