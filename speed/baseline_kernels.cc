// SPDX-License-Identifier: MIT
// The baselines `ropecheck bench` times beside a kernel, as kernels: the definitions of speed/baseline_kernels.h.
#include "speed/baseline_kernels.h"

#include <cstdint>
#include <cstring>

#include "core/isolation/call_extents.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/token_offsets.h"
#include "ropecheck/dtype.h"
#include "speed/byte_split.h"
#include "speed/rmw_pass.h"

namespace ropecheck::speed {
namespace {

// The XOR of the pass: zero, which the compiler cannot see (rmw_pass.h).
volatile std::uint32_t g_zero = 0;

struct Views {
  std::size_t q_bytes = 0, k_bytes = 0;
  int workers = 1;
};

Views views_of(const ropecheck_apply_params_t& p) {
  Views v;
  const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p.dtype));
  v.q_bytes = static_cast<std::size_t>(extent(p, true)) * es;
  v.k_bytes = p.num_kv_heads > 0 ? static_cast<std::size_t>(extent(p, false)) * es : 0;
  v.workers = workers_for(v.q_bytes + v.k_bytes, impl::threads_of(p));
  return v;
}

ropecheck_status_t copy_apply(void*, const ropecheck_apply_params_t* p, char*, std::size_t) {
  const Views v = views_of(*p);
  const auto copy = [&](const void* from, void* to, std::size_t n) {
    const auto* src = static_cast<const unsigned char*>(from);
    auto* dst = static_cast<unsigned char*>(to);
    split_bytes(n, v.workers, [&](std::size_t a, std::size_t e) { std::memcpy(dst + a, src + a, e - a); });
  };
  copy(p->q_in, p->q_out, v.q_bytes);
  if (v.k_bytes) copy(p->k_in, p->k_out, v.k_bytes);
  return ROPECHECK_OK;
}

ropecheck_status_t rmw_apply(void*, const ropecheck_apply_params_t* p, char*, std::size_t) {
  const Views v = views_of(*p);
  const std::uint32_t zero = g_zero;
  const auto pass = [&](void* at, std::size_t n) {
    auto* base = static_cast<unsigned char*>(at);
    // Whole 32-bit words (rmw_pass.h); a 16-bit view of odd length leaves
    // its last element, which changes nothing measurable.
    split_bytes(n & ~std::size_t{3}, v.workers, [&](std::size_t a, std::size_t e) { rmw_pass(base + a, e - a, zero); });
  };
  pass(p->q_out, v.q_bytes);
  if (v.k_bytes) pass(p->k_out, v.k_bytes);
  return ROPECHECK_OK;
}

constexpr ropecheck_caps_t kCaps = impl::standard_caps(impl::kBothLayouts, 0);
// Never judged; a table must state a policy.
constexpr Policy kPolicy{libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32)};

}  // namespace

const ropecheck_impl_t* copy_baseline() {
  static const ropecheck_impl_t t = impl::kernel_table(
      "baseline_copy", "memcpy of q_in into q_out and k_in into k_out: the bytes a kernel moves, moved", kCaps, kPolicy,
      copy_apply);
  return &t;
}

const ropecheck_impl_t* rmw_baseline() {
  static const ropecheck_impl_t t = impl::kernel_table(
      "baseline_rmw", "one read-modify-write pass over q and k in place: the in-place roofline", kCaps, kPolicy,
      rmw_apply);
  return &t;
}

}  // namespace ropecheck::speed
