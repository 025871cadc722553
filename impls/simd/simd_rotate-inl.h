// SPDX-License-Identifier: MIT
// Per-target rotation of one head's rotary channels (included by
// simd_heads-inl.h, compiled once per Highway target), one kind per storage
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
// Every kind computes x c - y s and x s + y c with the same operations
// (NegMulAdd, MulAdd: one FMA where the target has it, a product and a sum
// where it does not), so an element's bits do not depend on the block or the
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

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
HWY_INLINE int FloatLanes() { return static_cast<int>(hn::Lanes(DF())); }

// Each kind below rotates one head of one storage dtype and layout, in
// blocks of whole vectors, then a tail lane by lane:
//   kCoefs            cos/sin vectors a block needs;
//   Blocks(pairs)     whole blocks in a head;
//   LoadCoefs(k, b)   block b's cos/sin vectors (the same for every head);
//   Block(...)        block b of one head;
//   Tail(...)         the pairs after `blocks` blocks.

// fp32 or fp16 storage (T = float or hwy::float16_t), half split.
template <class T>
struct HalfSplit {
  using Elem = T;
  static constexpr int kCoefs = 2;
  HWY_INLINE static int Blocks(int pairs) { return pairs / FloatLanes(); }
  HWY_INLINE static void LoadCoefs(const CoefRows& k, int b, VF* v) {
    const int i = b * FloatLanes();
    v[0] = LoadOnce(DF(), k.c + i);
    v[1] = LoadOnce(DF(), k.s + i);
  }
  HWY_INLINE static void Block(const T* src, T* dst, int pairs, int b, const VF* v) {
    const DF df;
    const int i = b * FloatLanes();
    VF ox, oy;
    RotatePair(LoadWide(df, src + i), LoadWide(df, src + pairs + i), v[0], v[1], ox, oy);
    StoreNarrow(df, ox, dst + i);
    StoreNarrow(df, oy, dst + pairs + i);
  }
  HWY_INLINE static void Tail(const T* src, T* dst, int pairs, int blocks, const CoefRows& k) {
    const hn::CappedTag<float, 1> d1;
    for (int i = blocks * FloatLanes(); i < pairs; ++i) {
      hn::Vec<decltype(d1)> ox, oy;
      RotatePair(LoadWide(d1, src + i), LoadWide(d1, src + pairs + i), LoadOnce(d1, k.c + i), LoadOnce(d1, k.s + i),
                 ox, oy);
      StoreNarrow(d1, ox, dst + i);
      StoreNarrow(d1, oy, dst + pairs + i);
    }
  }
};

// fp32 or fp16 storage, interleaved: a block is one vector of channels,
// rotated with the pair swap (k.a = c duplicated per pair, k.b = -s, s).
template <class T>
struct Interleaved {
  using Elem = T;
  static constexpr int kCoefs = 2;
  HWY_INLINE static int Blocks(int pairs) { return HWY_TARGET == HWY_SCALAR ? 0 : 2 * pairs / FloatLanes(); }
  HWY_INLINE static void LoadCoefs(const CoefRows& k, int b, VF* v) {
    const int j = b * FloatLanes();
    v[0] = LoadOnce(DF(), k.a + j);
    v[1] = LoadOnce(DF(), k.b + j);
  }
  HWY_INLINE static void Block(const T* src, T* dst, int, int b, const VF* v) {
#if HWY_TARGET != HWY_SCALAR  // one lane has no neighbour to swap with
    const DF df;
    const int j = b * FloatLanes();
    const VF x = LoadWide(df, src + j);
    // Even lanes: y (-s) + x c; odd lanes: x s + y c, as RotatePair.
    StoreNarrow(df, hn::MulAdd(hn::Reverse2(df, x), v[1], hn::Mul(x, v[0])), dst + j);
#else
    (void)src, (void)dst, (void)b, (void)v;
#endif
  }
  HWY_INLINE static void Tail(const T* src, T* dst, int pairs, int blocks, const CoefRows& k) {
    const hn::CappedTag<float, 1> d1;
    for (int i = blocks * FloatLanes() / 2; i < pairs; ++i) {
      hn::Vec<decltype(d1)> ox, oy;
      RotatePair(LoadWide(d1, src + 2 * i), LoadWide(d1, src + 2 * i + 1), LoadOnce(d1, k.c + i),
                 LoadOnce(d1, k.s + i), ox, oy);
      StoreNarrow(d1, ox, dst + 2 * i);
      StoreNarrow(d1, oy, dst + 2 * i + 1);
    }
  }
};

// bf16 interleaved: lane j of a 32-bit vector is pair j.
struct Bf16Interleaved {
  using Elem = std::uint16_t;
  static constexpr int kCoefs = 2;
  HWY_INLINE static int Blocks(int pairs) { return pairs / FloatLanes(); }
  HWY_INLINE static void LoadCoefs(const CoefRows& k, int b, VF* v) {
    const int i = b * FloatLanes();
    v[0] = LoadOnce(DF(), k.c + i);
    v[1] = LoadOnce(DF(), k.s + i);
  }
  template <class D>
  HWY_INLINE static void Run(D df, const Elem* src, Elem* dst, int i, hn::Vec<D> c, hn::Vec<D> s) {
    const auto pr = LoadBf16Pairs(hn::RebindToUnsigned<D>(), src + 2 * i);
    hn::Vec<D> ox, oy;
    RotatePair(Bf16Low(df, pr), Bf16High(df, pr), c, s, ox, oy);
    StoreBf16Pairs(df, ox, oy, dst + 2 * i);
  }
  HWY_INLINE static void Block(const Elem* src, Elem* dst, int, int b, const VF* v) {
    Run(DF(), src, dst, b * FloatLanes(), v[0], v[1]);
  }
  HWY_INLINE static void Tail(const Elem* src, Elem* dst, int pairs, int blocks, const CoefRows& k) {
    const hn::CappedTag<float, 1> d1;
    for (int i = blocks * FloatLanes(); i < pairs; ++i)
      Run(d1, src, dst, i, LoadOnce(d1, k.c + i), LoadOnce(d1, k.s + i));
  }
};

// bf16 half split: lane j of a 32-bit vector at channel i holds channels
// i + 2j (low) and i + 2j + 1 (high); k.a, k.b hold the even pairs' c, s and,
// from k.half on, the odd pairs'. A block is 2N pairs.
struct Bf16HalfSplit {
  using Elem = std::uint16_t;
  static constexpr int kCoefs = 4;
  HWY_INLINE static int Blocks(int pairs) { return pairs / (2 * FloatLanes()); }
  HWY_INLINE static void LoadCoefs(const CoefRows& k, int b, VF* v) {
    const int h = b * FloatLanes();  // = i / 2
    v[0] = LoadOnce(DF(), k.a + h);
    v[1] = LoadOnce(DF(), k.a + k.half + h);
    v[2] = LoadOnce(DF(), k.b + h);
    v[3] = LoadOnce(DF(), k.b + k.half + h);
  }
  template <class D>
  HWY_INLINE static void Run(D df, const Elem* src, Elem* dst, int pairs, int i, hn::Vec<D> ce, hn::Vec<D> co, hn::Vec<D> se,
                  hn::Vec<D> so) {
    const hn::RebindToUnsigned<D> du;
    const auto xp = LoadBf16Pairs(du, src + i), yp = LoadBf16Pairs(du, src + pairs + i);
    hn::Vec<D> oxe, oye, oxo, oyo;
    RotatePair(Bf16Low(df, xp), Bf16Low(df, yp), ce, se, oxe, oye);
    RotatePair(Bf16High(df, xp), Bf16High(df, yp), co, so, oxo, oyo);
    StoreBf16Pairs(df, oxe, oxo, dst + i);
    StoreBf16Pairs(df, oye, oyo, dst + pairs + i);
  }
  HWY_INLINE static void Block(const Elem* src, Elem* dst, int pairs, int b, const VF* v) {
    Run(DF(), src, dst, pairs, 2 * b * FloatLanes(), v[0], v[1], v[2], v[3]);
  }
  // Two pairs per 32-bit lane from the plain rows, then a last odd pair
  // alone, rounded by the same lane code.
  HWY_INLINE static void Tail(const Elem* src, Elem* dst, int pairs, int blocks, const CoefRows& k) {
    const hn::CappedTag<float, 1> d1;
    int i = 2 * blocks * FloatLanes();
    for (; i + 2 <= pairs; i += 2)
      Run(d1, src, dst, pairs, i, LoadOnce(d1, k.c + i), LoadOnce(d1, k.c + i + 1), LoadOnce(d1, k.s + i),
          LoadOnce(d1, k.s + i + 1));
    if (i < pairs) {
      hn::Vec<decltype(d1)> ox, oy;
      RotatePair(hn::Set(d1, bf16_to_f32(src[i])), hn::Set(d1, bf16_to_f32(src[pairs + i])), hn::Set(d1, k.c[i]),
                 hn::Set(d1, k.s[i]), ox, oy);
      dst[i] = static_cast<std::uint16_t>(hn::GetLane(RoundToBf16Bits(d1, ox)) >> 16);
      dst[pairs + i] = static_cast<std::uint16_t>(hn::GetLane(RoundToBf16Bits(d1, oy)) >> 16);
    }
  }
};

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
