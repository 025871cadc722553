// SPDX-License-Identifier: MIT
// Per-target sin/cos of the on-the-fly angles (included by rope_simd-inl.h,
// compiled once per Highway target). One token's row of angles p * w_i:
//   1. in double: the product, the reduction mod 2 pi (kernel_support's
//      three-part Cody-Waite, vectorised) and then by the quadrant's multiple
//      of pi / 2 (the same parts divided by 4, exact), leaving t in about
//      [-pi/4, pi/4] and the quadrant q;
//   2. in fp32: t rounded once, one shared polynomial pair for sin and cos
//      (Cephes sinf/cosf, S. L. Moshier: minimax on [-pi/4, pi/4]), and the
//      quadrant's swap and signs, which are exact.
//
// Error against sin and cos of the kernel's own angle fl64(p w) (E3 in
// docs/ERROR_MODEL.md; the derivation is in docs/SIMD.md): at most 8.3e-8
// for sin and 9.6e-8 for cos on every target, FMA or not. simd_otf declares
// 1e-7 and impls/test/simd_sincos_test.cc checks it on every target over a
// dense sweep, printing the largest error it sees.
#if defined(ROPECHECK_IMPLS_SIMD_SIMD_SINCOS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_SIMD_SINCOS_INL_H_
#undef ROPECHECK_IMPLS_SIMD_SIMD_SINCOS_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_SIMD_SINCOS_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

#include "impls/kernel_support/angle_reduction.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Angles position * inv_freq[i] for i in [0, n) reduced to t[i] (fp32) in
// [-pi/4, pi/4] (up to a few ulps of double) and the quadrant q[i] in
// [-2, 2], so the angle is t + q pi/2 mod 2 pi. Whole vectors: the arrays
// are padded past n (simd_job.h, padded_pairs).
HWY_INLINE void ReduceAngles(double position, const double* HWY_RESTRICT inv_freq, int n, float* HWY_RESTRICT t,
                             std::int32_t* HWY_RESTRICT q) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> dfh;
  const hn::Rebind<std::int32_t, decltype(dd)> dih;
  const int N = static_cast<int>(hn::Lanes(dd));
  const auto p = hn::Set(dd, position);
  const auto inv_two_pi = hn::Set(dd, kInvTwoPi), two_over_pi = hn::Set(dd, 4 * kInvTwoPi);
  const auto hi = hn::Set(dd, kTwoPiHi), mid = hn::Set(dd, kTwoPiMid), lo = hn::Set(dd, kTwoPiLo);
  const auto qhi = hn::Set(dd, kTwoPiHi / 4), qmid = hn::Set(dd, kTwoPiMid / 4), qlo = hn::Set(dd, kTwoPiLo / 4);
  for (int i = 0; i < n; i += N) {
    const auto a = hn::Mul(p, hn::LoadU(dd, inv_freq + i));
    // reduce_two_pi, lane by lane: a - k hi is exact (see angle_reduction.h).
    const auto k = hn::Round(hn::Mul(a, inv_two_pi));
    const auto r = hn::NegMulAdd(k, lo, hn::NegMulAdd(k, mid, hn::NegMulAdd(k, hi, a)));
    // |r| <= pi, so |qd| <= 2: qd * qhi is exact and r - qd * qhi exact
    // (Sterbenz again); the two smaller parts round once each, ~1e-16.
    const auto qd = hn::Round(hn::Mul(r, two_over_pi));
    const auto tr = hn::NegMulAdd(qd, qlo, hn::NegMulAdd(qd, qmid, hn::NegMulAdd(qd, qhi, r)));
    hn::StoreU(hn::DemoteTo(dfh, tr), dfh, t + i);
    hn::StoreU(hn::DemoteTo(dih, qd), dih, q + i);
  }
}

// Cephes single precision sinf.c / cosf.c coefficients (Moshier), for
// sin x = x + x^3 (S1 + z S2 + z^2 S3) and cos x = 1 - z/2 + z^2 (C1 + z C2 +
// z^2 C3), z = x^2, |x| <= pi/4: approximation error below 5.7e-9 (sin) and
// 1.3e-10 (cos), measured in long double (docs/SIMD.md).
inline constexpr float kSin1 = -1.6666654611e-1f, kSin2 = 8.3321608736e-3f, kSin3 = -1.9515295891e-4f;
inline constexpr float kCos1 = 4.166664568298827e-2f, kCos2 = -1.388731625493765e-3f, kCos3 = 2.443315711809948e-5f;

// c[i] = m cos, s[i] = msign sin of the angles ReduceAngles left in t, q,
// for i in [0, n) (whole vectors, into the padding).
HWY_INLINE void SinCosReduced(const float* HWY_RESTRICT t, const std::int32_t* HWY_RESTRICT q, int n, float m,
                              float msign, float* HWY_RESTRICT c, float* HWY_RESTRICT s) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const int N = static_cast<int>(hn::Lanes(df));
  const auto vm = hn::Set(df, m), vms = hn::Set(df, msign);
  const auto one = hn::Set(di, 1);
  for (int i = 0; i < n; i += N) {
    const auto x = hn::LoadU(df, t + i);
    const auto qi = hn::LoadU(di, q + i);
    const auto z = hn::Mul(x, x);
    const auto sp = hn::MulAdd(hn::MulAdd(z, hn::Set(df, kSin3), hn::Set(df, kSin2)), z, hn::Set(df, kSin1));
    const auto sin_t = hn::MulAdd(hn::Mul(x, z), sp, x);
    const auto cq = hn::MulAdd(hn::MulAdd(z, hn::Set(df, kCos3), hn::Set(df, kCos2)), z, hn::Set(df, kCos1));
    const auto cos_t = hn::MulAdd(z, hn::MulAdd(z, cq, hn::Set(df, -0.5f)), hn::Set(df, 1.0f));
    // Quadrant q (mod 4): sin(t + q pi/2) is sin t, cos t, -sin t, -cos t,
    // cos(t + q pi/2) is cos t, -sin t, -cos t, sin t. Odd q swaps the two;
    // bit 1 of q (of q + 1 for cos) is the sign, moved to the sign bit.
    const auto swap = hn::RebindMask(df, hn::Eq(hn::And(qi, one), one));
    const auto sin_sign = hn::BitCast(df, hn::ShiftLeft<30>(qi));
    const auto cos_sign = hn::BitCast(df, hn::ShiftLeft<30>(hn::Add(qi, one)));
    const auto sign_bit = hn::Set(df, -0.0f);
    const auto sin_a = hn::Xor(hn::IfThenElse(swap, cos_t, sin_t), hn::And(sin_sign, sign_bit));
    const auto cos_a = hn::Xor(hn::IfThenElse(swap, sin_t, cos_t), hn::And(cos_sign, sign_bit));
    hn::StoreU(hn::Mul(cos_a, vm), df, c + i);
    hn::StoreU(hn::Mul(sin_a, vms), df, s + i);
  }
}

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
