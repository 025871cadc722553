// SPDX-License-Identifier: MIT
// Per-target body of the Highway SIMD kernels, compiled once per target by
// rope_simd.cc (foreach_target.h), hence Highway's toggling include guard:
// the row loop one thread runs over its share of a job (RunRows, over
// simd_token-inl.h's RunRowsThen), and the rows the tests call alone.
#if defined(ROPECHECK_IMPLS_SIMD_ROPE_SIMD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ROPECHECK_IMPLS_SIMD_ROPE_SIMD_INL_H_
#undef ROPECHECK_IMPLS_SIMD_ROPE_SIMD_INL_H_
#else
#define ROPECHECK_IMPLS_SIMD_ROPE_SIMD_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>
#include <cstring>

#include "impls/simd/simd_job.h"
#include "impls/simd/simd_token-inl.h"
#include "ropecheck/kernel_abi.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::impl::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rows [begin, end) of the job: the rotation alone.
void RunRows(const SimdJob& j, std::int64_t begin, std::int64_t end, float* scratch) {
  RunRowsThen(j, begin, end, scratch, [](std::int64_t, int, int) {});
}

// sin/cos of one row of on-the-fly angles, for the accuracy test.
void SinCosRow(double position, const double* inv_freq, int pairs, float* scratch, float* c, float* s) {
  const Scratch sc(scratch, pairs);
  ReduceAngles(position, inv_freq, pairs, sc.t, sc.q);
  SinCosReduced(sc.t, sc.q, pairs, 1.0f, 1.0f, sc.c, sc.s);
  std::memcpy(c, sc.c, sizeof(float) * static_cast<std::size_t>(pairs));
  std::memcpy(s, sc.s, sizeof(float) * static_cast<std::size_t>(pairs));
}

// fp16 bits widened to fp32 as the rotation loops load them (LoadWide),
// whole vectors then one lane at a time, for the conversion test.
void WidenF16Row(const std::uint16_t* in, int n, float* out) {
  const hn::ScalableTag<float> df;
  const hn::CappedTag<float, 1> d1;
  const int N = static_cast<int>(hn::Lanes(df));
  const auto* h = reinterpret_cast<const hwy::float16_t*>(in);
  int i = 0;
  for (; i + N <= n; i += N) hn::StoreU(LoadWide(df, h + i), df, out + i);
  for (; i < n; ++i) hn::StoreU(LoadWide(d1, h + i), d1, out + i);
}

// fp32 values narrowed to bf16 as the bf16 loops store them
// (StoreBf16Pairs: element 2j from a vector of even elements, 2j + 1 from one
// of odd elements), whole vectors of pairs then one pair at a time, for the
// conversion test. n even.
void NarrowBf16Row(const float* in, int n, std::uint16_t* out) {
  const hn::ScalableTag<float> df;
  const hn::CappedTag<float, 1> d1;
  const int N = static_cast<int>(hn::Lanes(df));
  int j = 0;  // pairs
  for (; j + N <= n / 2; j += N) {
    hn::Vec<decltype(df)> even, odd;
    hn::LoadInterleaved2(df, in + 2 * j, even, odd);
    StoreBf16Pairs(df, even, odd, out + 2 * j);
  }
  for (; j < n / 2; ++j) StoreBf16Pairs(d1, hn::Set(d1, in[2 * j]), hn::Set(d1, in[2 * j + 1]), out + 2 * j);
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace ropecheck::impl::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
