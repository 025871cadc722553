// SPDX-License-Identifier: MIT
// Per-target pieces of the Highway SIMD kernels' row loop (included by
// rope_simd-inl.h and simd_kv_write-inl.h, compiled once per target by each
// dispatch file that includes them), hence Highway's toggling include guard:
// a token's cos/sin prepared once, from the cache or on the fly, in the order
// its layout's vector loop reads them; the rotation of a run of its heads;
// and the loop over a thread's share of a job's rows (RunRowsThen).
#if defined(ROPECHECK_IMPLS_SIMD_SIMD_TOKEN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_SIMD_TOKEN_INL_H_
#undef ROPECHECK_IMPLS_SIMD_SIMD_TOKEN_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_SIMD_TOKEN_INL_H_
#endif

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "impls/simd/simd_job.h"
#include "impls/simd/simd_heads-inl.h"
#include "impls/simd/simd_sincos-inl.h"
#include "ropecheck/kernel_abi.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The per-thread scratch, eight padded per-pair rows (simd_job.h): the
// token's c and s, the reduced angles and quadrants (on the fly), and the two
// layout-ordered rows a and b (two rows each: fp32/fp16 interleaved rows hold
// every channel).
struct Scratch {
  float* c;
  float* s;
  float* t;
  std::int32_t* q;
  float* a;
  float* b;
  int row;  // floats per padded row

  Scratch(float* base, int pairs) : row(padded_pairs(pairs)) {
    c = base;
    s = base + row;
    t = base + 2 * row;
    q = reinterpret_cast<std::int32_t*>(base + 3 * row);
    a = base + 4 * row;
    b = base + 6 * row;
  }
};

inline std::int64_t PositionOf(const SimdJob& j, std::int64_t token, int axis = 0) {
  const std::int64_t i = axis * j.axis_stride + token;
  return j.positions_int32 ? static_cast<const std::int32_t*>(j.positions)[i]
                           : static_cast<const std::int64_t*>(j.positions)[i];
}

// Multi-axis (j.axes > 0): each pair's entry from its own axis's id. With a
// cache, pair i's cos/sin come from the row of its axis's position; on the
// fly, every axis's angles are reduced over the whole row (the same vector
// code as 1D) and each pair keeps its own axis's, so a pair's bits depend on
// its axis's id alone.
HWY_INLINE void MultiAxisAngles(const SimdJob& j, std::int64_t token, const Scratch& sc) {
  if (j.cache) {
    for (int i = 0; i < j.pairs; ++i) {
      const float* row = j.cache + PositionOf(j, token, j.pair_axis[i]) * 2 * j.pairs;
      sc.c[i] = row[i];
      sc.s[i] = row[j.pairs + i];
    }
    return;
  }
  std::int32_t* quadrant = reinterpret_cast<std::int32_t*>(sc.b);
  for (int a = 0; a < j.axes; ++a) {
    ReduceAngles(static_cast<double>(PositionOf(j, token, a)), j.inv_freq, j.pairs, sc.a, quadrant);
    for (int i = 0; i < j.pairs; ++i)
      if (j.pair_axis[i] == a) {
        sc.t[i] = sc.a[i];
        sc.q[i] = quadrant[i];
      }
  }
  SinCosReduced(sc.t, sc.q, j.pairs, j.m, j.m * j.sign, sc.c, sc.s);
}

// Token `token`'s m cos and sign m sin into sc.c, sc.s. A NaN there (a
// caller's cache, or explicit frequencies, can hold anything) becomes the
// default quiet NaN, whose low 16 bits are zero as the bf16 narrowing needs
// (RoundToBf16Bits); finite values pass unchanged.
// Out of line (HWY_NOINLINE; `inline` lets both kernel files define it), as
// RotateHeads below: once per token, so a call costs nothing measurable, while
// forced inlining copied its sin/cos code into every instantiation of
// RunRowsThen and made fused_kv_simd.cc a 150+ s compile (38 s now, all
// targets; bench/RESULTS.md, "CI time").
HWY_NOINLINE inline void TokenCosSin(const SimdJob& j, std::int64_t token, const Scratch& sc) {
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  float sign = 1.0f;
  const std::int64_t pos = PositionOf(j, token);
  if (j.axes > 0) {
    MultiAxisAngles(j, token, sc);
    if (j.cache) sign = j.sign;
  } else if (j.cache) {
    const float* row = j.cache + pos * 2 * j.pairs;
    std::memcpy(sc.c, row, sizeof(float) * static_cast<std::size_t>(j.pairs));
    std::memcpy(sc.s, row + j.pairs, sizeof(float) * static_cast<std::size_t>(j.pairs));
    sign = j.sign;
  } else {
    ReduceAngles(static_cast<double>(pos), j.inv_freq, j.pairs, sc.t, sc.q);
    SinCosReduced(sc.t, sc.q, j.pairs, j.m, j.m * j.sign, sc.c, sc.s);
  }
  const auto vsign = hn::Set(df, sign);
  const auto nan = hn::BitCast(df, hn::Set(hn::RebindToUnsigned<decltype(df)>(), 0x7fc00000u));
  for (int i = 0; i < j.pairs; i += N) {
    const auto c = hn::LoadU(df, sc.c + i), s = hn::Mul(hn::LoadU(df, sc.s + i), vsign);
    hn::StoreU(hn::IfThenElse(hn::IsNaN(c), nan, c), df, sc.c + i);
    hn::StoreU(hn::IfThenElse(hn::IsNaN(s), nan, s), df, sc.s + i);
  }
}

// Orders c, s for the layout's vector loop (CoefRows in simd_rotate-inl.h).
HWY_INLINE CoefRows LayoutRows(const SimdJob& j, const Scratch& sc) {
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  const bool bf16 = j.dtype == ROPECHECK_DTYPE_BF16;
  if (j.interleaved && !bf16) {
    for (int i = 0; i < j.pairs; i += N) {
      const auto c = hn::LoadU(df, sc.c + i), s = hn::LoadU(df, sc.s + i);
      hn::StoreInterleaved2(c, c, df, sc.a + 2 * i);
      hn::StoreInterleaved2(hn::Neg(s), s, df, sc.b + 2 * i);
    }
    return {sc.c, sc.s, sc.a, sc.b, 0};
  }
  if (!j.interleaved && bf16) {
    for (int i = 0; 2 * i < j.pairs; i += N) {
      hn::Vec<decltype(df)> even, odd;
      hn::LoadInterleaved2(df, sc.c + 2 * i, even, odd);
      hn::StoreU(even, df, sc.a + i);
      hn::StoreU(odd, df, sc.a + sc.row + i);
      hn::LoadInterleaved2(df, sc.s + 2 * i, even, odd);
      hn::StoreU(even, df, sc.b + i);
      hn::StoreU(odd, df, sc.b + sc.row + i);
    }
    return {sc.c, sc.s, sc.a, sc.b, sc.row};
  }
  return {sc.c, sc.s, sc.c, sc.s, 0};
}

// Heads [h0, h1) of one tensor at one token. Out of line, as TokenCosSin:
// the six kinds' head loops are compiled once per target, not once per call
// site in each RunRowsThen.
HWY_NOINLINE inline void RotateHeads(const SimdJob& j, const SimdTensor& x, std::int64_t token, int h0,
                                     int h1, const CoefRows& k) {
  const std::size_t es = j.dtype == ROPECHECK_DTYPE_F32 ? 4 : 2;
  const std::int64_t off = (x.token_offset(token) + h0 * x.head_stride) * static_cast<std::int64_t>(es);
  const HeadRun r{static_cast<const unsigned char*>(x.in) + off,
                  static_cast<unsigned char*>(x.out) + off,
                  x.head_stride * static_cast<std::int64_t>(es),
                  h1 - h0,
                  j.pairs,
                  2 * static_cast<std::size_t>(j.pairs) * es,
                  static_cast<std::size_t>(j.head_dim - 2 * j.pairs) * es};
  if (j.dtype == ROPECHECK_DTYPE_F32) {
    j.interleaved ? RotateHeadsOfKind<Interleaved<float>>(r, k) : RotateHeadsOfKind<HalfSplit<float>>(r, k);
  } else if (j.dtype == ROPECHECK_DTYPE_F16) {
    j.interleaved ? RotateHeadsOfKind<Interleaved<hwy::float16_t>>(r, k)
                  : RotateHeadsOfKind<HalfSplit<hwy::float16_t>>(r, k);
  } else {
    j.interleaved ? RotateHeadsOfKind<Bf16Interleaved>(r, k) : RotateHeadsOfKind<Bf16HalfSplit>(r, k);
  }
}

// Rows [begin, end) of the job (simd_job.h), scratch of scratch_floats(job)
// floats. A token's cos/sin are prepared once for all its rows in the range;
// with a cache, the next token's row is prefetched (a decode batch reads rows
// at unrelated positions, which no hardware prefetcher predicts). After the
// k heads [h0, h1) of a token are rotated (k.out holds them as stored),
// after_k(token, h0, h1) runs on the same thread: the fused cache write
// (simd_kv_write-inl.h) reads them there, so every head's entry is written
// by the thread that rotated it, whatever the split.
template <class AfterK>
HWY_INLINE void RunRowsThen(const SimdJob& j, std::int64_t begin, std::int64_t end, float* scratch,
                            const AfterK& after_k) {
  const Scratch sc(scratch, j.pairs);
  const int H = j.heads_per_token();
  std::int64_t token = begin / H;
  int h = static_cast<int>(begin % H);
  for (std::int64_t row = begin; row < end; ++token, h = 0) {
    const int h_end = static_cast<int>(std::min<std::int64_t>(H, h + (end - row)));
    if (j.cache && token + 1 < j.num_tokens) {
      const char* next = reinterpret_cast<const char*>(j.cache + PositionOf(j, token + 1) * 2 * j.pairs);
      for (std::size_t b = 0; b < sizeof(float) * 2 * static_cast<std::size_t>(j.pairs); b += 64)
        hwy::Prefetch(next + b);
    }
    TokenCosSin(j, token, sc);
    const CoefRows k = LayoutRows(j, sc);
    const int qh = j.q.heads;
    if (h < qh) RotateHeads(j, j.q, token, h, std::min(h_end, qh), k);
    if (h_end > qh) {
      RotateHeads(j, j.k, token, std::max(h, qh) - qh, h_end - qh, k);
      after_k(token, std::max(h, qh) - qh, h_end - qh);
    }
    row += h_end - h;
  }
}

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
