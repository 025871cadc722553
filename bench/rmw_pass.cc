// Highway dispatch file for the benchmark's in-place pass (rmw_pass.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/rmw_pass.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <hwy/highway.h>

#include <cstring>

#include "bench/rmw_pass.h"

HWY_BEFORE_NAMESPACE();
namespace ropecheck::bench::HWY_NAMESPACE {
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

const char* RmwTarget() { return hwy::TargetName(HWY_TARGET); }

}  // namespace ropecheck::bench::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ropecheck::bench {

HWY_EXPORT(RmwPass);
HWY_EXPORT(RmwTarget);

void rmw_pass(unsigned char* p, std::size_t bytes, std::uint32_t zero) {
  HWY_DYNAMIC_DISPATCH(RmwPass)(p, bytes, zero);
}
const char* rmw_target() { return HWY_DYNAMIC_DISPATCH(RmwTarget)(); }

}  // namespace ropecheck::bench
#endif  // HWY_ONCE
