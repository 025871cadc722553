// SPDX-License-Identifier: MIT
// Per-target storage conversions of the SIMD kernels (included by
// rope_simd-inl.h, compiled once per Highway target): fp16 and bf16 widened
// exactly to fp32 and narrowed back with round to nearest even, inside the
// vector loop. Highway's toggling include guard, as for every -inl.h.
#if defined(ROPECHECK_IMPLS_SIMD_SIMD_STORAGE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_SIMD_STORAGE_INL_H_
#undef ROPECHECK_IMPLS_SIMD_SIMD_STORAGE_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_SIMD_STORAGE_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

#include "ropecheck/dtype.h"

// The bf16 paths read two bf16 elements as one 32-bit lane (element 2j in
// its low half): that is the memory order of a little-endian machine only.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the bf16 pair lanes assume little-endian memory");

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Highway 1.0.3 converts between f16 and f32 with an instruction only where
// the CPU has one (x86 F16C from AVX2 up, Arm FCVT; exact widening, narrowing
// with round to nearest even) and emulates both directions elsewhere (SSSE3,
// SSE4, SCALAR, EMU128), with two faults, each found by simd_targets_test:
//   - narrowing truncates: we round with ropecheck's own scalar f32_to_f16;
//   - widening maps exponent 31 (Inf, NaN) to 2^16 (1 + m / 1024), a finite
//     number: an Inf or NaN input came out finite or as an overflowed Inf
//     (the static-dispatch build's differential_fuzzer finding, issue #23;
//     simd_special_inputs_test.cc). LoadWide repairs those lanes.
// (On Arm, NEON converts by instruction where __ARM_FP has the half-precision
// bit, always on AArch64, and SVE always; SCALAR and EMU128 emulate on every
// architecture. Elsewhere we assume emulation: the repairs are then merely
// redundant.)
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
inline constexpr bool kHardwareF16 = false;
#elif HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
inline constexpr bool kHardwareF16 = true;
#elif HWY_ARCH_ARM && defined(__ARM_FP) && (__ARM_FP & 2)
inline constexpr bool kHardwareF16 = true;
#else
inline constexpr bool kHardwareF16 = false;
#endif

// A loaded vector kept in a register. GCC folds a load into every
// instruction that uses it (x86 allows a memory operand), so a value used
// twice is loaded twice; with 512-bit vectors on AMD Zen 4 the load ports,
// not the arithmetic, then bound the rotation loops (measured: the fp32 half
// split loop did 8 loads per 2 vectors). An empty asm makes the value one
// register. Bits are unchanged; elsewhere it is the identity.
template <class V>
HWY_INLINE V InRegister(V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128 && defined(__GNUC__)
#if HWY_TARGET <= HWY_AVX3
  // "v": any of AVX-512's 32 registers. "x" names only the first 16, and
  // with 16 cos/sin vectors held (simd_heads-inl.h) GCC then spilled a
  // loaded row vector to the stack on every block.
  asm("" : "+v"(v.raw));
#else
  asm("" : "+x"(v.raw));
#endif
#endif
  return v;
}

template <class D, class T>
HWY_INLINE hn::Vec<D> LoadOnce(D d, const T* p) {
  return InRegister(hn::LoadU(d, p));
}

// fp32 or fp16 storage as fp32 lanes, element i at lane i.
template <class D>
HWY_INLINE hn::Vec<D> LoadWide(D d, const float* p) {
  return LoadOnce(d, p);
}
// The emulated widening gives every finite f16 exactly and puts each Inf or
// NaN at |v| >= 2^16, above the largest finite f16 (65504), with its sign
// and its mantissa in the top 10 mantissa bits. Setting the exponent bits
// there makes it ropecheck::f16_to_f32's value: Inf, or the NaN with that
// payload, quieted (bit 22) as F16C's VCVTPH2PS and f16_to_f32 quiet it.
template <class D>
HWY_INLINE hn::Vec<D> WidenF16(D d, hn::Vec<hn::Rebind<hwy::float16_t, D>> h) {
  const hn::Vec<D> v = hn::PromoteTo(d, h);
  if constexpr (kHardwareF16) {
    return v;
  } else {
    const hn::RebindToUnsigned<D> du;
    const auto special = hn::RebindMask(du, hn::Ge(hn::Abs(v), hn::Set(d, 65536.0f)));
    const auto b = hn::Or(hn::BitCast(du, v), hn::Set(du, 0x7f800000u));
    const auto nan = hn::RebindMask(du, hn::IsNaN(hn::BitCast(d, b)));
    const auto fixed = hn::Or(b, hn::IfThenElseZero(nan, hn::Set(du, 0x00400000u)));
    return hn::BitCast(d, hn::IfThenElse(special, fixed, hn::BitCast(du, v)));
  }
}

template <class D>
HWY_INLINE hn::Vec<D> LoadWide(D d, const hwy::float16_t* p) {
  return InRegister(WidenF16(d, hn::LoadU(hn::Rebind<hwy::float16_t, D>(), p)));
}
template <class D>
HWY_INLINE void StoreNarrow(D d, hn::Vec<D> v, float* p) {
  hn::StoreU(v, d, p);
}
template <class D>
HWY_INLINE void StoreNarrow(D d, hn::Vec<D> v, hwy::float16_t* p) {
  if constexpr (kHardwareF16) {
    const hn::Rebind<hwy::float16_t, D> dh;
    hn::StoreU(hn::DemoteTo(dh, v), dh, p);
  } else {
    HWY_ALIGN float tmp[hn::MaxLanes(d)];
    hn::Store(v, d, tmp);
    auto* bits = reinterpret_cast<std::uint16_t*>(p);
    for (size_t i = 0; i < hn::Lanes(d); ++i) bits[i] = f32_to_f16(tmp[i]);
  }
}

// bf16 pairs: one 32-bit lane holds elements 2j (low half) and 2j + 1 (high
// half). Widening is exact (bf16 is the top half of an fp32): the low element
// shifted up, the high element with the low half cleared. No lane crosses
// another, so no shuffle is needed in either layout.
template <class DU>
HWY_INLINE hn::Vec<DU> LoadBf16Pairs(DU du, const std::uint16_t* p) {
  return LoadOnce(du, reinterpret_cast<const std::uint32_t*>(p));
}
template <class DF, class VU>
HWY_INLINE hn::Vec<DF> Bf16Low(DF df, VU pairs) {
  return hn::BitCast(df, hn::ShiftLeft<16>(pairs));
}
template <class DF, class VU>
HWY_INLINE hn::Vec<DF> Bf16High(DF df, VU pairs) {
  return hn::BitCast(df, hn::And(pairs, hn::Set(hn::RebindToUnsigned<DF>(), 0xffff0000u)));
}

// fp32 bits with round to nearest even to bf16 applied: the result's top 16
// bits are the bf16, as ropecheck::f32_to_bf16 computes it, for every finite
// value and every NaN whose low 16 bits are zero. Those are the only NaNs the
// bf16 loops produce, so no lane needs a NaN test: a NaN result is an input
// NaN propagated by the FPU with its payload (IEEE 754-2008 6.2.3; x86, Arm,
// POWER) or the FPU's default NaN (x86 0xffc00000, Arm and RISC-V
// 0x7fc00000), and every input NaN has zero low bits: q and k are widened
// bf16, and TokenCosSin (rope_simd-inl.h) replaces any NaN in the cos/sin
// rows by the default NaN. Adding at most 0x8000 to zero low bits cannot
// carry, so such a NaN keeps its top half: still a quiet NaN (arithmetic
// quiets it), as f32_to_bf16 returns.
template <class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> RoundToBf16Bits(DF, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const auto b = hn::BitCast(du, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(b), hn::Set(du, 1u));
  return hn::Add(b, hn::Add(lsb, hn::Set(du, 0x7fffu)));
}

// Two fp32 vectors narrowed to bf16 and stored as pairs: `low` lanes become
// elements 2j, `high` lanes elements 2j + 1.
//
// Packed first, rounded after: P holds the two truncated bf16 (the top
// halves), L the two discarded low halves, each in a 16-bit lane. Round to
// nearest even adds one to P exactly when the discarded half exceeds 0x8000,
// or equals it and P is odd: when (L | (P & 1)) > 0x8000, unsigned. That is
// RoundToBf16Bits's carry for both halves at once, in 7 vector operations
// instead of 10 (the bf16 loops are bound by their arithmetic on Zen 4).
// A NaN has L = 0 here (see RoundToBf16Bits) and stays as it is.
template <class DF>
HWY_INLINE void StoreBf16Pairs([[maybe_unused]] DF df, hn::Vec<DF> low, hn::Vec<DF> high, std::uint16_t* p) {
  const hn::RebindToUnsigned<DF> du;
#if HWY_TARGET == HWY_SCALAR  // no 16-bit lanes inside a 32-bit one
  const auto lo = hn::ShiftRight<16>(RoundToBf16Bits(df, low));
  const auto packed = hn::OrAnd(lo, RoundToBf16Bits(df, high), hn::Set(du, 0xffff0000u));
  hn::StoreU(packed, du, reinterpret_cast<std::uint32_t*>(p));
#else
  const hn::Repartition<std::uint16_t, DF> d16;
  const auto bl = hn::BitCast(du, low), bh = hn::BitCast(du, high);
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
  // One blend (pblendw) picks the 16-bit halves where AVX-512's ternary
  // logic is missing: 2 instructions for each of P and L instead of 3.
  const auto top = hn::OddEven(hn::BitCast(d16, bh), hn::BitCast(d16, hn::ShiftRight<16>(bl)));
  const auto rest = hn::OddEven(hn::BitCast(d16, hn::ShiftLeft<16>(bh)), hn::BitCast(d16, bl));
#else
  const auto top = hn::BitCast(d16, hn::OrAnd(hn::ShiftRight<16>(bl), bh, hn::Set(du, 0xffff0000u)));
  const auto rest = hn::BitCast(d16, hn::OrAnd(hn::ShiftLeft<16>(bh), bl, hn::Set(du, 0x0000ffffu)));
#endif
  const auto one = hn::Set(d16, 1);
  const auto up = hn::Gt(hn::OrAnd(rest, top, one), hn::Set(d16, 0x8000));
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
  // Masks are vectors here, a true lane all ones (-1): one subtraction adds
  // the carry, where a blend of top + 1 and top took two instructions.
  hn::StoreU(hn::Sub(top, hn::VecFromMask(d16, up)), d16, p);
#else
  hn::StoreU(hn::IfThenElse(up, hn::Add(top, one), top), d16, p);
#endif
#endif
}

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
