// SPDX-License-Identifier: MIT
// Deliberate exact comparisons of floating-point values (the build makes
// -Wfloat-equal an error everywhere else).
#ifndef ROPECHECK_FLOAT_COMPARE_H_
#define ROPECHECK_FLOAT_COMPARE_H_

namespace ropecheck {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wfloat-equal"
template <class T>
constexpr bool exactly_equal(T a, T b) {
  return a == b;
}
#pragma GCC diagnostic pop

}  // namespace ropecheck

#endif  // ROPECHECK_FLOAT_COMPARE_H_
