// Per-target body of the Highway SIMD kernels: compiled once per target by
// rope_simd.cc (foreach_target.h), hence Highway's toggling include guard
// instead of a plain one. Row loads/stores with exact widening and
// round-to-nearest-even narrowing, the pair rotation in both layouts, and
// sin/cos of reduced angles.
#if defined(ROPECHECK_IMPLS_SIMD_ROPE_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_ROPE_SIMD_INL_H_
#undef ROPECHECK_IMPLS_SIMD_ROPE_SIMD_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_ROPE_SIMD_INL_H_
#endif

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ropecheck/dtype.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;

// N lanes of bf16 at p widened to fp32 (exact: bf16 is the top half of fp32).
HWY_INLINE hn::Vec<DF> LoadBf16(DF df, const std::uint16_t* p) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::Rebind<std::uint16_t, DF> du16;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, p))));
}

// fp32 lanes rounded to bf16 (nearest even, NaN kept quiet) and stored.
HWY_INLINE void StoreBf16(DF, hn::Vec<DF> v, std::uint16_t* p) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<std::uint16_t, DF> du16;
  const auto b = hn::BitCast(du32, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(b), hn::Set(du32, 1));
  auto r = hn::Add(b, hn::Add(hn::Set(du32, 0x7fff), lsb));
  r = hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), hn::Or(b, hn::Set(du32, 0x400000)), r);
  const auto hi = hn::BitCast(di32, hn::ShiftRight<16>(r));  // in [0, 0xffff]
  hn::StoreU(hn::DemoteTo(du16, hi), du16, p);
}

// Storage -> fp32 for `n` channels (exact for every storage dtype).
void LoadRow(const void* src, std::uint32_t dtype, int n, float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  int i = 0;
  if (dtype == ROPECHECK_DTYPE_F16) {
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const auto* s = static_cast<const hwy::float16_t*>(src);
    for (; i + N <= n; i += N) hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, s + i)), df, dst + i);
    for (; i < n; ++i) dst[i] = f16_to_f32(static_cast<const std::uint16_t*>(src)[i]);
  } else if (dtype == ROPECHECK_DTYPE_BF16) {
    const auto* s = static_cast<const std::uint16_t*>(src);
    for (; i + N <= n; i += N) hn::StoreU(LoadBf16(df, s + i), df, dst + i);
    for (; i < n; ++i) dst[i] = bf16_to_f32(s[i]);
  } else {
    std::memcpy(dst, src, sizeof(float) * static_cast<std::size_t>(n));
  }
}

// fp32 -> storage for `n` channels, round to nearest even.
void StoreRow(const float* HWY_RESTRICT src, std::uint32_t dtype, int n, void* dst) {
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  int i = 0;
  if (dtype == ROPECHECK_DTYPE_F16) {
    // Highway 1.0.3 emulates f32 -> f16 by truncation where the CPU has no
    // conversion instruction (SSSE3, SSE4, scalar; found by
    // simd_targets_test): use the vector path only with hardware F16C (x86
    // AVX2 and up) or Arm's FCVT, both round to nearest even.
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2) || HWY_ARCH_ARM
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    auto* d = static_cast<hwy::float16_t*>(dst);
    for (; i + N <= n; i += N) hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, src + i)), dh, d + i);
#endif
    for (; i < n; ++i) static_cast<std::uint16_t*>(dst)[i] = f32_to_f16(src[i]);
  } else if (dtype == ROPECHECK_DTYPE_BF16) {
    auto* d = static_cast<std::uint16_t*>(dst);
    for (; i + N <= n; i += N) StoreBf16(df, hn::LoadU(df, src + i), d + i);
    for (; i < n; ++i) d[i] = f32_to_bf16(src[i]);
  } else {
    std::memcpy(dst, src, sizeof(float) * static_cast<std::size_t>(n));
  }
}

// Rotates the rotary part of one head held in fp32: out = R x with per-pair
// c[i], s[i] (attention factor and direction folded in). in may alias out.
void RotateRow(const float* in, float* out, const float* HWY_RESTRICT c, const float* HWY_RESTRICT s,
               int pairs, bool interleaved) {
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  int i = 0;
  if (interleaved) {
    for (; i + N <= pairs; i += N) {
      hn::Vec<decltype(df)> x, y;
      hn::LoadInterleaved2(df, in + 2 * i, x, y);
      const auto vc = hn::LoadU(df, c + i), vs = hn::LoadU(df, s + i);
      const auto ox = hn::NegMulAdd(y, vs, hn::Mul(x, vc));  // x c - y s
      const auto oy = hn::MulAdd(x, vs, hn::Mul(y, vc));     // x s + y c
      hn::StoreInterleaved2(ox, oy, df, out + 2 * i);
    }
    for (; i < pairs; ++i) {
      const float x = in[2 * i], y = in[2 * i + 1];
      out[2 * i] = x * c[i] - y * s[i];
      out[2 * i + 1] = x * s[i] + y * c[i];
    }
  } else {
    for (; i + N <= pairs; i += N) {
      const auto x = hn::LoadU(df, in + i), y = hn::LoadU(df, in + pairs + i);
      const auto vc = hn::LoadU(df, c + i), vs = hn::LoadU(df, s + i);
      hn::StoreU(hn::NegMulAdd(y, vs, hn::Mul(x, vc)), df, out + i);
      hn::StoreU(hn::MulAdd(x, vs, hn::Mul(y, vc)), df, out + pairs + i);
    }
    for (; i < pairs; ++i) {
      const float x = in[i], y = in[pairs + i];
      out[i] = x * c[i] - y * s[i];
      out[pairs + i] = x * s[i] + y * c[i];
    }
  }
}

// sin/cos of reduced angles r in [-pi, pi] (fp32), scaled by m, with the
// direction's sign on sin.
void SinCosRow(const float* HWY_RESTRICT r, int pairs, float m, float sign, float* HWY_RESTRICT c,
               float* HWY_RESTRICT s) {
  const hn::ScalableTag<float> df;
  const int N = static_cast<int>(hn::Lanes(df));
  const auto vm = hn::Set(df, m), vms = hn::Set(df, m * sign);
  int i = 0;
  for (; i + N <= pairs; i += N) {
    const auto a = hn::LoadU(df, r + i);
    hn::StoreU(hn::Mul(hn::Cos(df, a), vm), df, c + i);
    hn::StoreU(hn::Mul(hn::Sin(df, a), vms), df, s + i);
  }
  if (i < pairs) {  // the tail through a full vector on a padded copy
    HWY_ALIGN float tmp[hn::MaxLanes(df)] = {};
    HWY_ALIGN float oc[hn::MaxLanes(df)], os[hn::MaxLanes(df)];
    std::memcpy(tmp, r + i, sizeof(float) * static_cast<std::size_t>(pairs - i));
    const auto a = hn::Load(df, tmp);
    hn::Store(hn::Mul(hn::Cos(df, a), vm), df, oc);
    hn::Store(hn::Mul(hn::Sin(df, a), vms), df, os);
    std::memcpy(c + i, oc, sizeof(float) * static_cast<std::size_t>(pairs - i));
    std::memcpy(s + i, os, sizeof(float) * static_cast<std::size_t>(pairs - i));
  }
}

// All heads of one token of one tensor, fp32 storage: the loop lives in the
// target code so a token costs one dispatch, not one per head.
void RotateHeadsF32(const float* in, float* out, std::int64_t head_stride, int heads, int head_dim,
                    const float* HWY_RESTRICT c, const float* HWY_RESTRICT s, int pairs, bool interleaved) {
  const int d = 2 * pairs;
  for (int h = 0; h < heads; ++h) {
    const float* src = in + h * head_stride;
    float* dst = out + h * head_stride;
    RotateRow(src, dst, c, s, pairs, interleaved);
    if (src != dst && d < head_dim) std::memcpy(dst + d, src + d, sizeof(float) * (head_dim - d));
  }
}

// All heads of one token of one tensor, 16-bit storage, in target code.
// bf16 half split is fused per vector (widen, rotate, round, store); other
// cases go through an fp32 row (interleaved pairs, f16 without a hardware
// conversion, tails).
void RotateHeads16(const void* in, void* out, std::int64_t head_stride, int heads, int head_dim,
                   std::uint32_t dtype, const float* HWY_RESTRICT c, const float* HWY_RESTRICT s, int pairs,
                   bool interleaved) {
  const DF df;
  const int N = static_cast<int>(hn::Lanes(df));
  const int d = 2 * pairs;
  const bool fused = dtype == ROPECHECK_DTYPE_BF16 && !interleaved;
  HWY_ALIGN float row[4096];
  for (int h = 0; h < heads; ++h) {
    const auto* src = static_cast<const std::uint16_t*>(in) + h * head_stride;
    auto* dst = static_cast<std::uint16_t*>(out) + h * head_stride;
    int i = 0;
    if (fused) {
      for (; i + N <= pairs; i += N) {
        const auto x = LoadBf16(df, src + i), y = LoadBf16(df, src + pairs + i);
        const auto vc = hn::LoadU(df, c + i), vs = hn::LoadU(df, s + i);
        StoreBf16(df, hn::NegMulAdd(y, vs, hn::Mul(x, vc)), dst + i);
        StoreBf16(df, hn::MulAdd(x, vs, hn::Mul(y, vc)), dst + pairs + i);
      }
      for (; i < pairs; ++i) {
        const float x = bf16_to_f32(src[i]), y = bf16_to_f32(src[pairs + i]);
        dst[i] = f32_to_bf16(x * c[i] - y * s[i]);
        dst[pairs + i] = f32_to_bf16(x * s[i] + y * c[i]);
      }
    } else {
      LoadRow(src, dtype, d, row);
      RotateRow(row, row, c, s, pairs, interleaved);
      StoreRow(row, dtype, d, dst);
    }
    if (src != dst && d < head_dim) std::memcpy(dst + d, src + d, sizeof(std::uint16_t) * (head_dim - d));
  }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
