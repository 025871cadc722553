// SPDX-License-Identifier: MIT
// Where the case generator gets its decisions. Choices is the interface the
// one case generator (core/cases.h) draws from: a seeded Rng for the suites,
// RapidCheck for shrinking counterexamples (properties/test), and the
// fuzzer's byte decoder (fuzz/) all drive the same generator through it.
// Every derived draw (range, chance, pick...) is defined here once, from
// below() and uniform(), so a seed gives the same case on every platform and
// standard library (the std distributions are implementation-defined).
#ifndef ROPECHECK_CORE_CASES_RNG_H_
#define ROPECHECK_CORE_CASES_RNG_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

namespace ropecheck {

class Choices {
 public:
  virtual ~Choices() = default;
  // Uniform in [0, n), n > 0. Sources that shrink or run out of bytes
  // return 0, so the first option of every choice is the simplest one.
  virtual std::uint64_t below(std::uint64_t n) = 0;
  // Uniform in [0, 1), a multiple of 2^-53.
  virtual double uniform() = 0;
  // 64 arbitrary bits (seeds).
  virtual std::uint64_t bits() = 0;

  std::int64_t range(std::int64_t lo, std::int64_t hi) {  // inclusive
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }
  bool chance(double p) { return uniform() < p; }
  template <class T, std::size_t N>
  const T& pick(const T (&options)[N]) {
    return options[below(N)];
  }
  template <class T>
  const T& pick(std::span<const T> options) {
    return options[below(options.size())];
  }
};

// SplitMix64. Final, so that a caller holding an Rng (not a Choices&) calls
// it directly, inlined: the virtual calls per drawn element were most of
// drawing a case's inputs and a KV cache's random bytes (perf, quick gate).
class Rng final : public Choices {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  Rng(std::uint64_t seed, std::uint64_t stream) : state_(mix(seed) ^ mix(stream + 0x9e37u)) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    return mix_step(z);
  }
  // Rejection keeps it unbiased. A power of two n (a significand's bits)
  // takes the same draws without the two divisions: (2^64 - 1) % n is
  // n - 1 and v % n is v & (n - 1) (the divisions were most of drawing an
  // input value, four per element).
  std::uint64_t below(std::uint64_t n) override {
    if ((n & (n - 1)) == 0) {
      std::uint64_t v;
      do v = next(); while (v >= ~std::uint64_t{0} - (n - 1));
      return v & (n - 1);
    }
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
    std::uint64_t v;
    do v = next(); while (v >= limit);
    return v % n;
  }
  double uniform() override { return static_cast<double>(next() >> 11) * 0x1p-53; }
  std::uint64_t bits() override { return next(); }
  using Choices::uniform;

  static std::uint64_t mix(std::uint64_t z) { return mix_step(z + 0x9e3779b97f4a7c15ull); }

 private:
  static std::uint64_t mix_step(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_RNG_H_
