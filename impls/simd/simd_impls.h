// SPDX-License-Identifier: MIT
// The Highway SIMD kernels (no SIMD types here: Highway's public-header rule).
//   simd_cache: reads the [max_pos, rotary_dim] fp32 cos|sin cache.
//   simd_otf:   computes angles on the fly: p * w in double, reduced in
//               double to the quadrant, then sin/cos in fp32 by one shared
//               polynomial pair (declared FAST, 1e-7; docs/SIMD.md), so the
//               error does not grow with position beyond the double product.
//   simd_fused_kv_vllm: simd_cache's rotation fused with the paged KV-cache
//               write (ABI 1.4, MLA's caches of 1.5) in vLLM's arithmetic,
//               sat(k / scale) of the stored k, fp8 rounded in vector lanes
//               (fused_kv_simd.cc).
// All dispatch at run time to the best target the CPU supports, rotate
// fp32, fp16 and bf16 in both layouts inside the vector loop, and split
// rows over set_simd_threads() workers (docs/SIMD.md).
#ifndef ROPECHECK_IMPLS_SIMD_SIMD_IMPLS_H_
#define ROPECHECK_IMPLS_SIMD_SIMD_IMPLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

const ropecheck_impl_t* simd_cache_impl();
const ropecheck_impl_t* simd_otf_impl();
const ropecheck_impl_t* simd_fused_kv_vllm_impl();

// Threads the SIMD kernels may split rows over (default 1, so timings are
// single-threaded unless asked otherwise; the bits never depend on it).
// Clamped to [1, 256]. A call uses fewer when its rows are too few to repay
// the hand-off (impls/simd/row_split.h).
void set_simd_threads(int threads);
int simd_threads();

// Name of the Highway target the dispatcher chose for this process.
const char* simd_target_name();

// The environment variable ROPECHECK_SIMD_TARGET=NAME (AVX2, SSE4, SCALAR,
// ...: Highway's target names) pins the dispatcher, process-wide, to that
// target, so one machine can gate and time the code other CPUs run: e.g.
// `ROPECHECK_SIMD_TARGET=AVX2 ropecheck check --suite exhaustive`. It is
// read once, at the first call or target query. A name this build lacks or
// this CPU cannot run makes every call fail with INVALID_ARGUMENT and this
// message (empty when unset or valid).
std::string simd_target_pin_error();

// The Highway targets the kernels were compiled for (HWY_TARGETS of
// rope_simd.cc, a bit mask of HWY_* target bits) and among them the static
// baseline target (HWY_STATIC_TARGET: what the compiler may assume of any
// CPU, SCALAR or EMU128 without -march flags). The target tests run every one
// of them this CPU supports (impls/test/simd_target_param.h).
std::int64_t simd_compiled_targets();
std::int64_t simd_baseline_target();

// Each target compiled for that this CPU supports, alone, best first
// (Highway's bit order): the targets the tests run and ROPECHECK_SIMD_TARGET
// may name. Read before any pin (a pin narrows Highway's supported set).
std::vector<std::int64_t> simd_runnable_targets();

// simd_otf's sin/cos of the angles position * inv_freq[i], i < pairs, on
// the dispatched target, with m = 1 (for the accuracy test).
void simd_sincos_row(double position, const double* inv_freq, int pairs, float* c, float* s);

// fp16 bits in[0, n) widened to fp32 as the kernels' loops load them, on the
// dispatched target (for the conversion test).
void simd_widen_f16(const std::uint16_t* in, int n, float* out);

// fp32 in[0, n) narrowed to bf16 bits as the kernels' bf16 loops store them
// (pairs of elements, n even), on the dispatched target (for the conversion
// test).
void simd_narrow_bf16(const float* in, int n, std::uint16_t* out);

// One KV-cache row as simd_fused_kv_vllm writes it, on the dispatched
// target: n values of q/k storage dtype `dtype` (ropecheck_dtype_t) at src,
// divided by `scale` in fp32, rounded to `cache_dtype` (ropecheck_kv_dtype_t,
// saturating) into cache[0, n) (for the conversion test: every lane must be
// impls/kernel_support/kv_store.h's store_kv of the same value).
void simd_kv_cache_row(const void* src, std::uint32_t dtype, int n, float scale, void* cache,
                       std::uint32_t cache_dtype);

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_SIMD_SIMD_IMPLS_H_
