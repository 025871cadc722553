// SPDX-License-Identifier: MIT
// The reference checks itself: two working precisions (128 vs 256 bits) and
// two independent backends (MPFR vs cpp_bin_float) agree, and the three
// rotation code paths (pair loop, rotate_half vector form, complex product)
// agree to the last bits of the working precision.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "reference/rotation.h"

namespace ropecheck::ref {
namespace {

std::vector<FreqSpec> specs() {
  std::vector<FreqSpec> v;
  FreqSpec f;
  v.push_back(f);
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.factor = 32;
  f.base = 150000;
  f.original_max_position = 4096;
  f.truncate = false;
  v.push_back(f);
  FreqSpec l;
  l.scheme = ROPECHECK_SCHEME_LLAMA3;
  l.base = 500000;
  l.factor = 8;
  l.original_max_position = 8192;
  v.push_back(l);
  FreqSpec n;
  n.scheme = ROPECHECK_SCHEME_DYNAMIC_NTK;
  n.factor = 4;
  n.original_max_position = 2048;
  n.seq_len = 10000;
  v.push_back(n);
  return v;
}

constexpr std::int64_t kPositions[] = {0, 1, 7, 4096, 65536, 1 << 20, (1 << 24) + 1, 2147483647,
                                       -12345, -(std::int64_t{1} << 40)};

template <class A, class B>
double rel_diff(const A& a, const B& b) {
  const B aa(a.str(0, std::ios_base::scientific));  // cross-type via exact decimal
  if (b == 0) return aa == 0 ? 0.0 : 1.0;
  return abs((aa - b) / b).template convert_to<double>();
}

TEST(ReferencePrecision, FrequenciesAndAnglesAgreeAcrossPrecisions) {
  for (const FreqSpec& f : specs()) {
    ReferenceRope<Real> lo(f, {64, 64});
    ReferenceRope<RealHigh> hi(f, {64, 64});
    for (int i = 0; i < 32; ++i) {
      EXPECT_LE(rel_diff(lo.freqs().inv_freq[i], hi.freqs().inv_freq[i]), 0x1p-120)
          << f.describe() << " pair " << i;
      for (std::int64_t p : kPositions)
        EXPECT_LE(rel_diff(lo.angle(p, i), hi.angle(p, i)), 0x1p-120) << p;
    }
    EXPECT_LE(rel_diff(lo.freqs().attention_factor, hi.freqs().attention_factor), 0x1p-120);
  }
}

// cos and sin are as accurate as their argument allows: an angle known to
// relative 2^-120 is known to absolute |a| 2^-120, and cos moves by at most
// that much. So the bound is absolute, scaled by max(1, |a|).
TEST(ReferencePrecision, CosSinAgreeAcrossPrecisionsWithinTheAngleConditioning) {
  for (const FreqSpec& f : specs()) {
    ReferenceRope<Real> lo(f, {64, 64});
    ReferenceRope<RealHigh> hi(f, {64, 64});
    for (std::int64_t p : kPositions) {
      const auto& a = lo.trig(p);
      const auto& b = hi.trig(p);
      for (int i = 0; i < 32; ++i) {
        const double scale = std::max(1.0, std::fabs(hi.angle(p, i).convert_to<double>()));
        const RealHigh ca(a.cos[i].str(0, std::ios_base::scientific));
        const RealHigh sa(a.sin[i].str(0, std::ios_base::scientific));
        EXPECT_LE(abs(ca - b.cos[i]).convert_to<double>(), 0x1p-120 * scale) << p << " " << i;
        EXPECT_LE(abs(sa - b.sin[i]).convert_to<double>(), 0x1p-120 * scale) << p << " " << i;
      }
    }
  }
}

// cpp_bin_float is an independent implementation of the same mathematics
// (its own sin/cos, its own argument reduction). Boost 1.74 documents neither
// as correctly rounded and its reduction has no guard bits, so we allow
// 2^-100 absolute per unit of |a|: still 2^-47 below an fp64 ulp at 1.
TEST(ReferencePrecision, IndependentBackendAgrees) {
  for (const FreqSpec& f : specs()) {
    ReferenceRope<Real> mpfr(f, {64, 64});
    ReferenceRope<RealAlt> bin(f, {64, 64});
    for (int i = 0; i < 32; ++i)
      EXPECT_LE(rel_diff(bin.freqs().inv_freq[i], mpfr.freqs().inv_freq[i]), 0x1p-118) << i;
    for (std::int64_t p : kPositions) {
      const auto& a = bin.trig(p);
      const auto& b = mpfr.trig(p);
      for (int i = 0; i < 32; ++i) {
        const double scale = std::max(1.0, std::fabs(mpfr.angle(p, i).convert_to<double>()));
        const Real ca(a.cos[i].str(0, std::ios_base::scientific));
        const Real sa(a.sin[i].str(0, std::ios_base::scientific));
        EXPECT_LE(abs(ca - b.cos[i]).convert_to<double>(), 0x1p-100 * scale)
            << f.describe() << " p=" << p << " pair " << i;
        EXPECT_LE(abs(sa - b.sin[i]).convert_to<double>(), 0x1p-100 * scale)
            << f.describe() << " p=" << p << " pair " << i;
      }
    }
  }
}

TEST(ReferencePrecision, ThreeCodePathsAgreeToTheLastBits) {
  // Working precision of Real, in bits.
  const int bits = static_cast<int>(std::numeric_limits<Real>::digits);
  ASSERT_GE(bits, 128);
  for (const FreqSpec& base_spec : specs()) {
    for (auto layout : {ROPECHECK_LAYOUT_INTERLEAVED, ROPECHECK_LAYOUT_HALF_SPLIT}) {
      for (auto dir : {ROPECHECK_DIRECTION_FORWARD, ROPECHECK_DIRECTION_INVERSE}) {
        FreqSpec f = base_spec;
        f.attention_factor = 1.25;  // exercise m in every path
        ReferenceRope<Real> rope(f, {72, 64});
        std::vector<Real> x(72), y0(72), y1(72), y2(72);
        for (int j = 0; j < 72; ++j) x[j] = Real(std::ldexp(1.0 + j * 0.37, (j % 9) - 4)) * (j % 2 ? -1 : 1);
        for (std::int64_t p : kPositions) {
          rope.rotate(x.data(), y0.data(), p, layout, dir, Path::kPairLoop);
          rope.rotate(x.data(), y1.data(), p, layout, dir, Path::kVectorForm);
          rope.rotate(x.data(), y2.data(), p, layout, dir, Path::kComplex);
          for (int i = 0; i < 32; ++i) {
            int a, b;
            pair_channels(layout, 64, i, &a, &b);
            // A few roundings of a value bounded by m (|x| + |y|) each.
            const Real scale = Real(1.25) * (abs(x[a]) + abs(x[b]));
            const Real tol = scale * ldexp(Real(1), 4 - bits);
            for (int ch : {a, b}) {
              EXPECT_LE(abs(y1[ch] - y0[ch]), tol) << "vector form, p=" << p << " ch " << ch;
              EXPECT_LE(abs(y2[ch] - y0[ch]), tol) << "complex form, p=" << p << " ch " << ch;
            }
          }
          for (int j = 64; j < 72; ++j) {  // pass-through, exactly
            EXPECT_EQ(y0[j], x[j]);
            EXPECT_EQ(y1[j], x[j]);
            EXPECT_EQ(y2[j], x[j]);
          }
        }
      }
    }
  }
}

TEST(ReferencePrecision, InverseUndoesForwardWhenAttentionIsOne) {
  FreqSpec f;
  ReferenceRope<Real> rope(f, {64, 64});
  std::vector<Real> x(64), y(64), z(64);
  for (int j = 0; j < 64; ++j) x[j] = Real(j + 1) / 7;
  for (std::int64_t p : kPositions) {
    rope.rotate(x.data(), y.data(), p, ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_DIRECTION_FORWARD);
    rope.rotate(y.data(), z.data(), p, ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_DIRECTION_INVERSE);
    for (int j = 0; j < 64; ++j) EXPECT_LE(abs(z[j] - x[j]), Real(1e-36)) << p;
  }
}

}  // namespace
}  // namespace ropecheck::ref
