// SPDX-License-Identifier: MIT
// Mathematical constants in double, written once. C++17 (the CUDA host code
// includes this), so no std::numbers.
#ifndef ROPECHECK_NUMBERS_H_
#define ROPECHECK_NUMBERS_H_

namespace ropecheck {

// pi rounded to double (the literal has more digits than a double holds).
inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kTwoPi = 2 * kPi;  // exact: doubling is exact

}  // namespace ropecheck

#endif  // ROPECHECK_NUMBERS_H_
