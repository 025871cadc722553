// SPDX-License-Identifier: MIT
// Rope/MultiAxis: M-RoPE (Qwen2-VL, sections t/h/w of the pairs) and axial
// 2D vision RoPE (row/column halves) on the reference: the score between
// two tokens depends only on the per-axis offsets, and each axis rotates
// only its own pairs.
#include <gtest/gtest.h>

#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "reference/rotation.h"

namespace ropecheck::ref {
namespace {

std::vector<double> rotate(ReferenceRope<Real>& rope, const std::vector<double>& x,
                           const std::vector<std::int64_t>& pos, const std::vector<int>& sections,
                           ropecheck_layout_t layout) {
  const int hd = static_cast<int>(x.size());
  std::vector<Real> in(x.begin(), x.end()), out(hd);
  rope.rotate_sections(in.data(), out.data(), pos, sections, layout, ROPECHECK_DIRECTION_FORWARD);
  std::vector<double> r(hd);
  for (int j = 0; j < hd; ++j) r[j] = out[j].convert_to<double>();
  return r;
}

double score(const std::vector<double>& a, const std::vector<double>& b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

RC_GTEST_PROP(RopeMultiAxis, ScoresDependOnlyOnPerAxisOffsets, ()) {
  const bool mrope = *rc::gen::arbitrary<bool>();
  // Qwen2-VL: mrope_section (16, 24, 24) of 64 pairs; axial: two halves.
  std::vector<int> sections = mrope ? std::vector<int>{16, 24, 24} : std::vector<int>{32, 32};
  const int d = 128;
  FreqSpec f;
  f.base = mrope ? 1000000.0 : 10000.0;
  ReferenceRope<Real> rope(f, {d, d});
  const auto layout = *rc::gen::element(ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED);
  std::vector<double> q(d), k(d);
  for (int j = 0; j < d; ++j) {
    q[j] = *rc::gen::inRange(-1000, 1000) / 1000.0;
    k[j] = *rc::gen::inRange(-1000, 1000) / 1000.0;
  }
  const std::size_t axes = sections.size();
  std::vector<std::int64_t> pq(axes), pk(axes), pq2(axes), pk2(axes);
  for (std::size_t a = 0; a < axes; ++a) {
    pq[a] = *rc::gen::inRange(0, 4096);
    pk[a] = *rc::gen::inRange(0, 4096);
    const std::int64_t shift = *rc::gen::inRange(-4096, 4096);  // each axis its own shift
    pq2[a] = pq[a] + shift;
    pk2[a] = pk[a] + shift;
  }
  const double s1 = score(rotate(rope, q, pq, sections, layout), rotate(rope, k, pk, sections, layout));
  const double s2 = score(rotate(rope, q, pq2, sections, layout), rotate(rope, k, pk2, sections, layout));
  RC_ASSERT(std::fabs(s1 - s2) <= 1e-12);
  // Moving one axis only touches that axis's pairs.
  std::vector<std::int64_t> moved = pq;
  const std::size_t axis = *rc::gen::inRange<std::size_t>(0, axes);
  moved[axis] += 1;
  const auto a = rotate(rope, q, pq, sections, layout), b = rotate(rope, q, moved, sections, layout);
  int first = 0;
  for (std::size_t s = 0; s < axis; ++s) first += sections[s];
  for (int i = 0; i < d / 2; ++i) {
    int ca, cb;
    pair_channels(layout, d, i, &ca, &cb);
    const bool inside = i >= first && i < first + sections[axis];
    const bool same = std::fabs(a[ca] - b[ca]) + std::fabs(a[cb] - b[cb]) <= 0.0;
    RC_ASSERT(inside != same || (inside && std::fabs(q[ca]) + std::fabs(q[cb]) <= 0.0));
  }
}

TEST(RopeMultiAxis, RejectsSectionsThatDoNotCoverThePairs) {
  FreqSpec f;
  ReferenceRope<Real> rope(f, {16, 16});
  std::vector<Real> x(16), y(16);
  EXPECT_THROW(rope.rotate_sections(x.data(), y.data(), {0, 0}, {4, 3}, ROPECHECK_LAYOUT_HALF_SPLIT,
                                    ROPECHECK_DIRECTION_FORWARD),
               ConfigError);
  EXPECT_THROW(rope.rotate_sections(x.data(), y.data(), {0}, {4, 4}, ROPECHECK_LAYOUT_HALF_SPLIT,
                                    ROPECHECK_DIRECTION_FORWARD),
               ConfigError);
}

}  // namespace
}  // namespace ropecheck::ref
