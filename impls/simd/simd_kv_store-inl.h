// SPDX-License-Identifier: MIT
// Per-target store of one KV-cache row (ABI 1.4): n stored values of the q/k
// dtype (fp32, fp16, bf16) widened exactly to fp32, divided by the scale in
// fp32 (one rounding: vLLM's `x / scale`), and rounded to the cache dtype,
// every lane giving exactly the bits of impls/kernel_support/kv_store.h's
// store_kv(cache, i, dtype, x / scale, true), the scalar fused kernels'
// store: fp32 as it is; fp16 saturated to +-65504, then rounded to nearest
// even (NaN as f32_to_f16 gives it); bf16 saturated to +-0x1.fep127, then
// rounded to nearest even (NaN as f32_to_bf16 gives it, whatever its payload); fp8 as simd_fp8-inl.h
// converts. Whole vectors, then the tail one lane at a time through the same
// code, so an element's bits never depend on where in the row it lies.
// Included by simd_kv_write-inl.h, compiled once per Highway target, hence
// the toggling include guard.
#if defined(ROPECHECK_IMPLS_SIMD_SIMD_KV_STORE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_SIMD_KV_STORE_INL_H_
#undef ROPECHECK_IMPLS_SIMD_SIMD_KV_STORE_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_SIMD_KV_STORE_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

#include "impls/simd/simd_fp8-inl.h"
#include "impls/simd/simd_storage-inl.h"
#include "ropecheck/fp8.h"
#include "ropecheck/kernel_abi.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// bf16 storage widened exactly: the 16 bits are the top half of the fp32.
// (The rotation loops read bf16 as pairs in 32-bit lanes, simd_storage-inl.h;
// a cache row keeps element order, so here one element per lane.)
template <class D>
HWY_INLINE hn::Vec<D> LoadWide(D d, const hwy::bfloat16_t* p) {
  const hn::RebindToUnsigned<D> du;
  const auto h = hn::LoadU(hn::Rebind<std::uint16_t, D>(), reinterpret_cast<const std::uint16_t*>(p));
  return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(du, h)));
}

// y's lanes into cache elements [i, i + Lanes(d)) of a cache of dtype C.
template <std::uint32_t C, class D>
HWY_INLINE void StoreKv(D d, hn::Vec<D> y, void* cache, std::int64_t i) {
  const hn::RebindToUnsigned<D> du;
  if constexpr (C == ROPECHECK_KV_F32) {
    hn::StoreU(y, d, static_cast<float*>(cache) + i);
  } else if constexpr (C == ROPECHECK_KV_F16) {
    // store_kv saturates before rounding (a NaN fails both compares and
    // stays). f32_to_f16 gives every NaN as sign | 0x7e00, where F16C keeps
    // the payload's top bits: a NaN is replaced by the quiet NaN of its sign
    // with no payload, which both narrow to that code.
    const auto limit = hn::Set(d, 65504.0f);
    y = hn::IfThenElse(hn::Gt(y, limit), limit, y);
    y = hn::IfThenElse(hn::Lt(y, hn::Neg(limit)), hn::Neg(limit), y);
    y = hn::IfThenElse(hn::IsNaN(y), hn::CopySign(hn::BitCast(d, hn::Set(du, 0x7fc00000u)), y), y);
    StoreNarrow(d, y, reinterpret_cast<hwy::float16_t*>(static_cast<std::uint16_t*>(cache) + i));
  } else if constexpr (C == ROPECHECK_KV_BF16) {
    // RoundToBf16Bits is f32_to_bf16 for every finite value and infinity; a
    // NaN's payload may carry into its sign there (0x7fffffff becomes -0),
    // so NaN lanes take f32_to_bf16's own answer, the top half quieted.
    // Saturated first, as store_kv does (bf16's largest finite is 0x1.fep127).
    const auto limit = hn::Set(d, 0x1.fep127f);
    y = hn::IfThenElse(hn::Gt(y, limit), limit, y);
    y = hn::IfThenElse(hn::Lt(y, hn::Neg(limit)), hn::Neg(limit), y);
    const auto b = hn::BitCast(du, y);
    const auto nan_bits = hn::Or(hn::ShiftRight<16>(b), hn::Set(du, 0x0040u));
    const auto bits = hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(y)), nan_bits,
                                     hn::ShiftRight<16>(RoundToBf16Bits(d, y)));
    const hn::Rebind<std::uint16_t, D> d16;
    hn::StoreU(hn::DemoteTo(d16, hn::BitCast(hn::RebindToSigned<D>(), bits)), d16,
               static_cast<std::uint16_t*>(cache) + i);
  } else if constexpr (C == ROPECHECK_KV_FP8_E4M3FN) {
    StoreFp8<Fp8Format::kE4M3FN>(d, y, static_cast<std::uint8_t*>(cache) + i);
  } else {
    static_assert(C == ROPECHECK_KV_FP8_E5M2, "a ropecheck_kv_dtype_t");
    StoreFp8<Fp8Format::kE5M2>(d, y, static_cast<std::uint8_t*>(cache) + i);
  }
}

// src[0, n) of storage type T, divided by `scale`, into cache elements
// [at, at + n) of dtype C.
template <class T, std::uint32_t C>
HWY_INLINE void KvRowOf(const T* src, int n, float scale, void* cache, std::int64_t at) {
  const hn::ScalableTag<float> df;
  const hn::CappedTag<float, 1> d1;
  const int N = static_cast<int>(hn::Lanes(df));
  const auto s = hn::Set(df, scale);
  int i = 0;
  for (; i + N <= n; i += N) StoreKv<C>(df, hn::Div(LoadWide(df, src + i), s), cache, at + i);
  for (; i < n; ++i) StoreKv<C>(d1, hn::Div(LoadWide(d1, src + i), hn::Set(d1, scale)), cache, at + i);
}

template <class T>
HWY_INLINE void KvRowFrom(const T* src, int n, float scale, void* cache, std::int64_t at, std::uint32_t cache_dtype) {
  switch (cache_dtype) {
    case ROPECHECK_KV_F32: return KvRowOf<T, ROPECHECK_KV_F32>(src, n, scale, cache, at);
    case ROPECHECK_KV_F16: return KvRowOf<T, ROPECHECK_KV_F16>(src, n, scale, cache, at);
    case ROPECHECK_KV_BF16: return KvRowOf<T, ROPECHECK_KV_BF16>(src, n, scale, cache, at);
    case ROPECHECK_KV_FP8_E4M3FN: return KvRowOf<T, ROPECHECK_KV_FP8_E4M3FN>(src, n, scale, cache, at);
    default: return KvRowOf<T, ROPECHECK_KV_FP8_E5M2>(src, n, scale, cache, at);
  }
}

// n values of q/k storage dtype `dtype` (ropecheck_dtype_t) at src, divided
// by `scale`, into cache elements [at, at + n) of `cache_dtype`
// (ropecheck_kv_dtype_t). Out of line: a call per cache row is nothing
// beside the row, and its fifteen (dtype, cache dtype) loops inlined at each
// of WriteKvEntries' four call sites were most of fused_kv_simd.cc's compile.
HWY_NOINLINE inline void KvRow(const void* src, std::uint32_t dtype, int n, float scale, void* cache,
                               std::int64_t at, std::uint32_t cache_dtype) {
  if (dtype == ROPECHECK_DTYPE_F32) {
    KvRowFrom(static_cast<const float*>(src), n, scale, cache, at, cache_dtype);
  } else if (dtype == ROPECHECK_DTYPE_F16) {
    KvRowFrom(static_cast<const hwy::float16_t*>(src), n, scale, cache, at, cache_dtype);
  } else {
    KvRowFrom(static_cast<const hwy::bfloat16_t*>(src), n, scale, cache, at, cache_dtype);
  }
}

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
