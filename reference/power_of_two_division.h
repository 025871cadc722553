// SPDX-License-Identifier: MIT
// Division by a power of two (an ulp, reference/rounding.h's ulp_of) as a
// multiplication by its exact reciprocal, bit for bit the division.
#ifndef ROPECHECK_REFERENCE_POWER_OF_TWO_DIVISION_H_
#define ROPECHECK_REFERENCE_POWER_OF_TWO_DIVISION_H_

#include <cstdint>
#include <cstring>

namespace ropecheck::ref {

// num / p for p a power of two: a normal p whose reciprocal is a normal
// double (2^-1022 <= |p| <= 2^1022) has an exact reciprocal, and num times
// it rounds the same real number num / p (zeros, infinities and NaN
// included); any other p is divided. The judge divides every element's
// error by an ulp, and a division costs several multiplications' cycles
// (bench/RESULTS.md, issue 53: three per element were a third of the
// judge's own time).
[[gnu::always_inline]] inline double divide_by_power_of_two(double num, double p) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &p, sizeof bits);
  const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
  if ((bits & ((std::uint64_t{1} << 52) - 1)) != 0 || biased < 1 || biased > 2045) return num / p;
  // |p| = 2^(biased - 1023), 1 / |p| = 2^(1023 - (biased - 1023)).
  const std::uint64_t inv = (bits & (std::uint64_t{1} << 63)) | (static_cast<std::uint64_t>(2046 - biased) << 52);
  double r = 0;
  std::memcpy(&r, &inv, sizeof r);
  return num * r;
}

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_POWER_OF_TWO_DIVISION_H_
