// SPDX-License-Identifier: MIT
// Highway dispatch file for the benchmark's in-place baselines (rmw_pass.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "speed/rmw_pass.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <hwy/highway.h>

#include <cstring>

#include "speed/rmw_pass.h"
#include "impls/simd/simd_storage-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::speed::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void RmwPass(unsigned char* p, std::size_t bytes, std::uint32_t zero) {
  const hn::ScalableTag<std::uint32_t> du;
  const std::size_t N = hn::Lanes(du);
  auto* w = reinterpret_cast<std::uint32_t*>(p);
  const std::size_t n = bytes / sizeof(std::uint32_t);
  const auto z = hn::Set(du, zero);
  std::size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto a = hn::LoadU(du, w + i), b = hn::LoadU(du, w + i + N);
    hn::StoreU(hn::Xor(a, z), du, w + i);
    hn::StoreU(hn::Xor(b, z), du, w + i + N);
  }
  for (; i < n; ++i) {
    std::uint32_t v;
    std::memcpy(&v, w + i, sizeof v);
    v ^= zero;
    std::memcpy(w + i, &v, sizeof v);
  }
}

// Whole vectors, then one lane at a time, with the kernels' conversions:
// LoadWide / StoreNarrow (fp32, fp16) and the bf16 pair lanes.
template <class T>
void ConvertWide(T* p, std::size_t n) {
  const hn::ScalableTag<float> df;
  const hn::CappedTag<float, 1> d1;
  const std::size_t N = hn::Lanes(df);
  std::size_t i = 0;
  for (; i + N <= n; i += N) impl::HWY_NAMESPACE::StoreNarrow(df, impl::HWY_NAMESPACE::LoadWide(df, p + i), p + i);
  for (; i < n; ++i) impl::HWY_NAMESPACE::StoreNarrow(d1, impl::HWY_NAMESPACE::LoadWide(d1, p + i), p + i);
}

void ConvertBf16(std::uint16_t* p, std::size_t n) {
  namespace ih = impl::HWY_NAMESPACE;
  const hn::ScalableTag<float> df;
  const hn::CappedTag<float, 1> d1;
  const std::size_t N = hn::Lanes(df);
  std::size_t i = 0;  // pairs of bf16, one per 32-bit lane
  for (; i + N <= n / 2; i += N) {
    const auto pr = ih::LoadBf16Pairs(hn::RebindToUnsigned<decltype(df)>(), p + 2 * i);
    ih::StoreBf16Pairs(df, ih::Bf16Low(df, pr), ih::Bf16High(df, pr), p + 2 * i);
  }
  for (; i < n / 2; ++i) {
    const auto pr = ih::LoadBf16Pairs(hn::RebindToUnsigned<decltype(d1)>(), p + 2 * i);
    ih::StoreBf16Pairs(d1, ih::Bf16Low(d1, pr), ih::Bf16High(d1, pr), p + 2 * i);
  }
}

void ConvertPass(std::uint32_t dt, unsigned char* p, std::size_t bytes) {
  if (dt == ROPECHECK_DTYPE_F32)
    ConvertWide(reinterpret_cast<float*>(p), bytes / 4);
  else if (dt == ROPECHECK_DTYPE_F16)
    ConvertWide(reinterpret_cast<hwy::float16_t*>(p), bytes / 2);
  else
    ConvertBf16(reinterpret_cast<std::uint16_t*>(p), bytes / 2);
}

const char* RmwTarget() { return hwy::TargetName(HWY_TARGET); }

}  // namespace ropecheck::speed::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ropecheck::speed {

HWY_EXPORT(RmwPass);
HWY_EXPORT(ConvertPass);
HWY_EXPORT(RmwTarget);

void rmw_pass(unsigned char* p, std::size_t bytes, std::uint32_t zero) {
  HWY_DYNAMIC_DISPATCH(RmwPass)(p, bytes, zero);
}
void convert_pass(ropecheck_dtype_t dt, unsigned char* p, std::size_t bytes) {
  HWY_DYNAMIC_DISPATCH(ConvertPass)(static_cast<std::uint32_t>(dt), p, bytes);
}
const char* rmw_target() { return HWY_DYNAMIC_DISPATCH(RmwTarget)(); }

}  // namespace ropecheck::speed
#endif  // HWY_ONCE
