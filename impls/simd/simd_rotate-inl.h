// Per-target rotation of one head's rotary channels (included by
// rope_simd-inl.h, compiled once per Highway target), one loop per storage
// dtype and pairing layout, each with its cos/sin rows prepared once per
// token in the order its lanes need (CoefRows):
//   fp32/fp16 half split:  x = [i, i+N), y = [d/2 + i, ...): c, s as they are;
//   fp32/fp16 interleaved: v = [x0 y0 x1 y1 ...] rotated in place as
//                          v * [c0 c0 c1 c1 ...] + Reverse2(v) * [-s0 s0 -s1 s1 ...]
//                          (the pair swap is an in-lane shuffle, no deinterleave);
//   bf16 interleaved:      one 32-bit lane is a whole pair (x low, y high), so
//                          x and y widen by a shift and a mask: c, s as they are;
//   bf16 half split:       one 32-bit lane is channels 2j, 2j+1, so the even
//                          and odd pairs of a vector take c, s deinterleaved.
// Every loop computes x c - y s and x s + y c with the same operations
// (NegMulAdd, MulAdd: one FMA where the target has it, a product and a sum
// where it does not), so an element's bits do not depend on the loop or the
// tail that reaches it. Tails run the same code on one lane.
#if defined(ROPECHECK_IMPLS_SIMD_SIMD_ROTATE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_SIMD_ROTATE_INL_H_
#undef ROPECHECK_IMPLS_SIMD_SIMD_ROTATE_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_SIMD_ROTATE_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

#include "impls/simd/simd_storage-inl.h"
#include "ropecheck/dtype.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One token's cos/sin: c, s per pair (attention factor and direction folded
// in), and a, b, the same values in the order the layout's vector loop reads
// (see above). `half` is the offset of the odd-pair halves in a and b (bf16
// half split).
struct CoefRows {
  const float* c;
  const float* s;
  const float* a;
  const float* b;
  int half;
};

// ox = x c - y s, oy = x s + y c.
template <class V>
HWY_INLINE void RotatePair(V x, V y, V c, V s, V& ox, V& oy) {
  ox = hn::NegMulAdd(y, s, hn::Mul(x, c));
  oy = hn::MulAdd(x, s, hn::Mul(y, c));
}

// fp32 or fp16 storage (T = float or hwy::float16_t), half split.
template <class T>
HWY_INLINE void RotateHalfSplit(const T* src, T* dst, int pairs, const CoefRows& k) {
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  int i = 0;
  for (; i + N <= pairs; i += N) {
    hn::Vec<decltype(df)> ox, oy;
    RotatePair(LoadWide(df, src + i), LoadWide(df, src + pairs + i), LoadOnce(df, k.c + i), LoadOnce(df, k.s + i),
               ox, oy);
    StoreNarrow(df, ox, dst + i);
    StoreNarrow(df, oy, dst + pairs + i);
  }
  const hn::CappedTag<float, 1> d1;
  for (; i < pairs; ++i) {
    hn::Vec<decltype(d1)> ox, oy;
    RotatePair(LoadWide(d1, src + i), LoadWide(d1, src + pairs + i), LoadOnce(d1, k.c + i), LoadOnce(d1, k.s + i),
               ox, oy);
    StoreNarrow(d1, ox, dst + i);
    StoreNarrow(d1, oy, dst + pairs + i);
  }
}

// fp32 or fp16 storage, interleaved: whole vectors of pairs rotated with the
// pair swap (k.a = c duplicated per pair, k.b = -s, s per pair).
template <class T>
HWY_INLINE void RotateInterleaved(const T* src, T* dst, int pairs, const CoefRows& k) {
  int j = 0;
#if HWY_TARGET != HWY_SCALAR
  const int d = 2 * pairs;
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  for (; j + N <= d; j += N) {
    const auto v = LoadWide(df, src + j);
    // Even lanes: y (-s) + x c; odd lanes: x s + y c, as RotatePair.
    StoreNarrow(df, hn::MulAdd(hn::Reverse2(df, v), LoadOnce(df, k.b + j), hn::Mul(v, LoadOnce(df, k.a + j))),
                dst + j);
  }
#endif
  const hn::CappedTag<float, 1> d1;
  for (int i = j / 2; i < pairs; ++i) {
    hn::Vec<decltype(d1)> ox, oy;
    RotatePair(LoadWide(d1, src + 2 * i), LoadWide(d1, src + 2 * i + 1), LoadOnce(d1, k.c + i),
               LoadOnce(d1, k.s + i), ox, oy);
    StoreNarrow(d1, ox, dst + 2 * i);
    StoreNarrow(d1, oy, dst + 2 * i + 1);
  }
}

// bf16 interleaved: lane j of a 32-bit vector is pair j.
HWY_INLINE void RotateBf16Interleaved(const std::uint16_t* src, std::uint16_t* dst, int pairs, const CoefRows& k) {
  auto run = [&](auto df, int i) {
    const hn::RebindToUnsigned<decltype(df)> du;
    const auto pr = LoadBf16Pairs(du, src + 2 * i);
    hn::Vec<decltype(df)> ox, oy;
    RotatePair(Bf16Low(df, pr), Bf16High(df, pr), LoadOnce(df, k.c + i), LoadOnce(df, k.s + i), ox, oy);
    StoreBf16Pairs(df, ox, oy, dst + 2 * i);
  };
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  int i = 0;
  for (; i + N <= pairs; i += N) run(df, i);
  for (; i < pairs; ++i) run(hn::CappedTag<float, 1>(), i);
}

// bf16 half split: lane j of a 32-bit vector at channel i holds channels
// i + 2j (low) and i + 2j + 1 (high); k.a, k.b hold the even pairs' c, s and,
// from k.half on, the odd pairs'.
HWY_INLINE void RotateBf16HalfSplit(const std::uint16_t* src, std::uint16_t* dst, int pairs, const CoefRows& k) {
  auto run = [&](auto df, int i, const float* ce, const float* co, const float* se, const float* so) {
    const hn::RebindToUnsigned<decltype(df)> du;
    const auto xp = LoadBf16Pairs(du, src + i), yp = LoadBf16Pairs(du, src + pairs + i);
    hn::Vec<decltype(df)> oxe, oye, oxo, oyo;
    RotatePair(Bf16Low(df, xp), Bf16Low(df, yp), LoadOnce(df, ce), LoadOnce(df, se), oxe, oye);
    RotatePair(Bf16High(df, xp), Bf16High(df, yp), LoadOnce(df, co), LoadOnce(df, so), oxo, oyo);
    StoreBf16Pairs(df, oxe, oxo, dst + i);
    StoreBf16Pairs(df, oye, oyo, dst + pairs + i);
  };
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  int i = 0;
  for (; i + 2 * N <= pairs; i += 2 * N)
    run(df, i, k.a + i / 2, k.a + k.half + i / 2, k.b + i / 2, k.b + k.half + i / 2);
  // Tails: two pairs per 32-bit lane from the plain rows, then a last odd
  // pair alone, rounded by the same lane code.
  for (; i + 2 <= pairs; i += 2) run(hn::CappedTag<float, 1>(), i, k.c + i, k.c + i + 1, k.s + i, k.s + i + 1);
  if (i < pairs) {
    const hn::CappedTag<float, 1> d1;
    hn::Vec<decltype(d1)> ox, oy;
    RotatePair(hn::Set(d1, bf16_to_f32(src[i])), hn::Set(d1, bf16_to_f32(src[pairs + i])), hn::Set(d1, k.c[i]),
               hn::Set(d1, k.s[i]), ox, oy);
    dst[i] = static_cast<std::uint16_t>(hn::GetLane(RoundToBf16Bits(d1, ox)) >> 16);
    dst[pairs + i] = static_cast<std::uint16_t>(hn::GetLane(RoundToBf16Bits(d1, oy)) >> 16);
  }
}

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
