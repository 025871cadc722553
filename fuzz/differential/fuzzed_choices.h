// SPDX-License-Identifier: MIT
// The fuzzer's bytes as the case generator's choices (core/cases/rng.h):
// every decision the generator makes is one read from the input, so
// libFuzzer's mutations move along the generator's own dimensions. Once the
// bytes run out every choice is 0, the simplest option.
// uniform() reads two bytes (a multiple of 2^-16), not eight: a case takes
// some twenty of them (shape, scheme, layout, dtype, direction, placement,
// memory), and with eight bytes each libFuzzer's short inputs ran out
// before the dtype was drawn. `ropecheck fuzz`'s tally showed every call
// of a 20 s run f32, token-major, inverse and below 2^10.
#ifndef ROPECHECK_FUZZ_DIFFERENTIAL_FUZZED_CHOICES_H_
#define ROPECHECK_FUZZ_DIFFERENTIAL_FUZZED_CHOICES_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>

#include "core/cases/rng.h"

namespace ropecheck::fuzz {

class FuzzedChoices : public Choices {
 public:
  explicit FuzzedChoices(FuzzedDataProvider& fdp) : fdp_(fdp) {}
  std::uint64_t below(std::uint64_t n) override { return fdp_.ConsumeIntegralInRange<std::uint64_t>(0, n - 1); }
  double uniform() override { return static_cast<double>(fdp_.ConsumeIntegral<std::uint16_t>()) * 0x1p-16; }
  std::uint64_t bits() override { return fdp_.ConsumeIntegral<std::uint64_t>(); }

 private:
  FuzzedDataProvider& fdp_;
};

}  // namespace ropecheck::fuzz

#endif  // ROPECHECK_FUZZ_DIFFERENTIAL_FUZZED_CHOICES_H_
