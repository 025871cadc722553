// The Highway SIMD kernels (no SIMD types here: Highway's public-header rule).
//   simd_cache: reads the [max_pos, rotary_dim] fp32 cos|sin cache.
//   simd_otf:   computes angles on the fly: p * w in double, reduced mod 2 pi
//               in double (three-part Cody-Waite), then sin/cos in fp32 with
//               Highway's contrib math (3 ulp on the reduced angle), so the
//               error does not grow with position beyond the double product.
// Both dispatch at run time to the best target the CPU supports.
#ifndef ROPECHECK_IMPLS_SIMD_SIMD_IMPLS_H_
#define ROPECHECK_IMPLS_SIMD_SIMD_IMPLS_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

const ropecheck_impl_t* simd_cache_impl();
const ropecheck_impl_t* simd_otf_impl();

// Worker threads the SIMD kernels split tokens over (default 1, so results
// and timings are deterministic unless asked otherwise). Clamped to [1, 256].
void set_simd_threads(int threads);
int simd_threads();

// Name of the Highway target the dispatcher chose for this process.
const char* simd_target_name();

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_SIMD_SIMD_IMPLS_H_
