// SPDX-License-Identifier: MIT
// The fast exact reference against the MPFR path, bit for bit, on every
// case of the quick and standard suites (and the first cases of the
// exhaustive one), as drawn and re-stored in fp64 or moved to positions
// anywhere in +-2^40: every double the result holds (inputs, values,
// roundings to the dtype, angles, cos, sin, frequencies, the attention
// factor) must have the same bits, the sign of zero included. Each test
// prints how much the MPFR path had to decide (the fallback rate).
#include <gtest/gtest.h>

#include <cstdio>

#include "core/judge/reference_result.h"
#include "core/cases/rng.h"
#include "core/test/fast_reference_check.h"

namespace ropecheck::test {
namespace {

void suite(Suite s, int cases) {
  Tally drawn, f64, far;
  Rng rng(0xfa57, static_cast<std::uint64_t>(s));
  for (int i = 0; i < cases; ++i) {
    const Case c = make_case(s, 1, i);
    compare_paths(c, make_inputs(c), &drawn);
    if (i % 6 == 0) {  // the same case stored in fp64
      Case d = c;
      d.dtype = ROPECHECK_DTYPE_F64;
      compare_paths(d, make_inputs(d), &f64);
    }
    if (i % 10 == 0) {  // positions anywhere in +-2^40
      Case d = c;
      for (auto& p : d.positions) p = rng.range(-(std::int64_t{1} << 40), std::int64_t{1} << 40);
      compare_paths(d, make_inputs(d), &far);
    }
  }
  const std::string name = suite_name(s);
  expect_identical((name + " suite, every case").c_str(), drawn);
  expect_identical((name + " suite, fp64 storage").c_str(), f64);
  expect_identical((name + " suite, positions in +-2^40").c_str(), far);
}

// The element walk (counters, no divisions) yields what element(w, i)
// computes from the index, on cases with GQA, padding and partial rotary.
TEST(ReferenceResult, ElementWalkMatchesIndexedElements) {
  for (int idx = 0; idx < 40; ++idx) {
    const Case c = make_case(Suite::kStandard, 5, idx);
    const ReferenceResult r = compute_reference(c, make_inputs(c));
    for (int w = 0; w < 2; ++w) {
      std::size_t i = 0;
      for (const ReferenceElement& e : r.elements(w)) {
        const ReferenceElement f = r.element(w, i++);
        ASSERT_EQ(e.offset, f.offset) << idx;
        ASSERT_EQ(e.token, f.token);
        ASSERT_EQ(e.head, f.head);
        ASSERT_EQ(e.channel, f.channel);
        ASSERT_EQ(e.terms.pair, f.terms.pair);
      }
      ASSERT_EQ(i, r.elements(w).size());
    }
  }
}

TEST(FastReference, SameBitsAsMpfrOnTheQuickSuite) { suite(Suite::kQuick, suite_size(Suite::kQuick)); }
TEST(FastReference, SameBitsAsMpfrOnTheStandardSuite) { suite(Suite::kStandard, suite_size(Suite::kStandard)); }
TEST(FastReference, SameBitsAsMpfrOnExhaustiveCases) { suite(Suite::kExhaustive, 400); }

}  // namespace
}  // namespace ropecheck::test
