// SPDX-License-Identifier: MIT
// What the two bit-for-bit tests of the fast reference share: running a
// case through both paths (compute_reference, compute_reference_mpfr),
// counting differences and fallbacks, and building edge cases whose (x, y)
// per pair a test chooses.
#ifndef ROPECHECK_CORE_TEST_FAST_REFERENCE_CHECK_H_
#define ROPECHECK_CORE_TEST_FAST_REFERENCE_CHECK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "reference/fast_rotation.h"

namespace ropecheck::test {

struct Tally {
  std::uint64_t cases = 0, elements = 0, differences = 0;
  ref::FastStats stats;
  std::string first;  // the first difference, with its case
  void add(const Tally& o);
  // "cases 600, elements 1728394, differences 0, fallbacks 1 (5.8e-05%), ..."
  std::string line() const;
};

// Both paths on one case; every double compared by bit pattern (the sign of
// zero counts).
void compare_paths(const Case& c, const QkBuffers& in, Tally* t);

// One q head and one kv head; head_dim = rotary_dim = 2 pairs.
Case edge_case(const ref::FreqSpec& f, int pairs, ropecheck_dtype_t dtype, std::vector<std::int64_t> positions);
// Inputs with (x, y) = fn(tensor, token, pair) for every pair.
using PairFn = std::function<std::pair<double, double>(int w, std::int64_t token, int pair)>;
QkBuffers edge_inputs(const Case& c, const PairFn& fn);
// The case in both layouts and both directions.
void compare_all_ways(Case c, const PairFn& fn, Tally* t);
// Prints the tally's line; expects no difference, on some elements.
void expect_identical(const char* what, const Tally& t);

ref::FreqSpec default_spec(std::optional<double> m = std::nullopt);
ref::FreqSpec explicit_spec(std::vector<double> w, std::optional<double> m = std::nullopt);

inline constexpr ropecheck_dtype_t kAllDtypes[] = {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16,
                                                   ROPECHECK_DTYPE_F64};

}  // namespace ropecheck::test

#endif  // ROPECHECK_CORE_TEST_FAST_REFERENCE_CHECK_H_
