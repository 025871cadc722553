// SPDX-License-Identifier: MIT
// Per-target conversion of fp32 to the OCP fp8 formats a KV cache is stored
// in (ropecheck/fp8.h: e4m3fn and e5m2), saturating as CUDA's
// __NV_SATFINITE does (vLLM's and FlashInfer's cache writes), round to
// nearest even on the integer bits: no dependence on the floating-point
// environment a caller may leave changed, and every lane gives exactly
// ropecheck::f32_to_fp8(x, format, true)'s byte (simd_kv_write_test checks
// every fp32 bit pattern class and random bits on every target). Included by
// simd_kv_store-inl.h, compiled once per Highway target, hence the toggling
// include guard.
//
// One formula for normal and subnormal results. With E the fp32 biased
// exponent, m the 24-bit significand (hidden bit set), E0 the biased fp32
// exponent of the format's smallest normal (127 + emin) and M its mantissa
// bits, f32_to_fp8 takes n = m / 2^sh rounded to nearest even, where
// sh = 23 - M + max(E0 - E, 0) (the quantum at x is 2^(emin - M) below the
// normal range), and builds the code from n quanta. That code is
//     mag = (max(E - E0, 0) << M) + n:
// a subnormal result (E < E0) is n itself, a carry to n = 2^M included (the
// smallest normal's code); a normal result has exponent field E - E0 + 1 and
// mantissa n - 2^M, i.e. ((E - E0 + 1) << M) + n - 2^M, and a carry to
// n = 2^(M+1) steps into the next binade by the addition alone. Saturation is
// min(mag, max_code): every overflow, infinity included, has mag > max_code
// (e4m3fn's 0x7f is its NaN, e5m2's 0x7c its infinity). NaN gives the
// format's NaN code.
//
// sh is capped at 25: from there on m < 2^24 is below half a quantum and
// n = 0, as in f32_to_fp8 for any larger shift (fp32 zeros and subnormals
// included). Rounding at bit sh of m is rounding at bit 25 of
// m << (25 - sh) < 2^29, so one variable shift, to the left and exact, puts
// every lane's rounding point in the same place, and the rounding itself is
// the constant-shift form (m' + 2^24 - 1 + lsb) >> 25: a variable shift is a
// single instruction from AVX2 up but about ten on SSE4, which has none.
#if defined(ROPECHECK_IMPLS_SIMD_SIMD_FP8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_SIMD_FP8_INL_H_
#undef ROPECHECK_IMPLS_SIMD_SIMD_FP8_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_SIMD_FP8_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

#include "ropecheck/fp8.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The fp8 code of each lane of x (0..255 in a 32-bit lane): sign | mag.
template <Fp8Format F, class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> Fp8Codes(DF, hn::Vec<DF> x) {
  constexpr Fp8Spec kSpec = fp8_spec(F);
  constexpr int kM = kSpec.mantissa_bits;
  constexpr int kNormalShift = 23 - kM;        // sh of a normal result
  constexpr int kMaxExtra = 25 - kNormalShift;  // sh capped at 25 (see above)
  constexpr int kE0 = 127 + kSpec.emin;
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto b = hn::BitCast(du, x);
  const auto a = hn::And(b, hn::Set(du, 0x7fffffffu));
  const auto m = hn::Or(hn::And(a, hn::Set(du, 0x007fffffu)), hn::Set(du, 0x00800000u));
  // E - E0: binades above the smallest normal (negative below it).
  const auto above = hn::Sub(hn::BitCast(di, hn::ShiftRight<23>(a)), hn::Set(di, kE0));
  // 25 - sh = kMaxExtra - min(max(E0 - E, 0), kMaxExtra), in [0, kMaxExtra].
  const auto extra = hn::Min(hn::Max(hn::Neg(above), hn::Zero(di)), hn::Set(di, kMaxExtra));
  const auto up = hn::Shl(m, hn::BitCast(du, hn::Sub(hn::Set(di, kMaxExtra), extra)));
  const auto lsb = hn::And(hn::ShiftRight<25>(up), hn::Set(du, 1u));  // ties to even
  const auto n = hn::ShiftRight<25>(hn::Add(hn::Add(up, hn::Set(du, 0x00ffffffu)), lsb));
  const auto binades = hn::BitCast(du, hn::Max(above, hn::Zero(di)));
  const auto mag = hn::Min(hn::Add(hn::ShiftLeft<kM>(binades), n), hn::Set(du, kSpec.max_code));
  // a > 0x7f800000 (both below 2^31: a signed compare is exact).
  const auto nan = hn::RebindMask(du, hn::Gt(hn::BitCast(di, a), hn::Set(di, 0x7f800000)));
  const auto code = hn::IfThenElse(nan, hn::Set(du, kSpec.nan_code), mag);
  return hn::Or(code, hn::And(hn::ShiftRight<24>(b), hn::Set(du, 0x80u)));
}

// x's lanes as fp8 bytes at p[0, Lanes(df)).
template <Fp8Format F, class DF>
HWY_INLINE void StoreFp8(DF df, hn::Vec<DF> x, std::uint8_t* p) {
  const hn::Rebind<std::uint8_t, DF> d8;
  hn::StoreU(hn::U8FromU32(Fp8Codes<F>(df, x)), d8, p);
}

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
