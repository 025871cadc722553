// Highway dispatch file for the SIMD RoPE kernels, in Highway's four parts:
// HWY_TARGET_INCLUDE, foreach_target.h, the per-target body
// (rope_simd-inl.h), and the HWY_ONCE export block with the ABI entry points.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impls/simd/rope_simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <hwy/highway.h>

#include "impls/simd/rope_simd-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/angle_reduction.h"
#include "impls/kernel_support/cache_builder.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/simd/simd_impls.h"

namespace ropecheck::impl {

HWY_EXPORT(LoadRow);
HWY_EXPORT(StoreRow);
HWY_EXPORT(RotateRow);
HWY_EXPORT(SinCosRow);
HWY_EXPORT(RotateHeadsF32);
HWY_EXPORT(RotateHeads16);
HWY_EXPORT(TargetName);

namespace {

std::atomic<int> g_threads{1};

enum class Mode { kCache, kOnTheFly };

struct Shared {
  const ropecheck_apply_params_t* p;
  Mode mode;
  std::vector<double> inv_freq;  // on the fly: the engine's double frequencies
  float m = 1.0f;
};

// Rotates tokens [t0, t1): per token the cos/sin row, then every q and k head.
void run_tokens(const Shared& sh, std::int64_t t0, std::int64_t t1) {
  const ropecheck_apply_params_t& p = *sh.p;
  const int hd = p.head_dim, d = p.rotary_dim, pairs = d / 2;
  const bool interleaved = p.layout == ROPECHECK_LAYOUT_INTERLEAVED;
  const float sign = p.direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  std::vector<float> c(pairs), s(pairs), r(pairs);
  for (std::int64_t t = t0; t < t1; ++t) {
    const std::int64_t pos = position_at(&p, t);
    if (sh.mode == Mode::kCache) {
      const float* cr = static_cast<const float*>(p.cos_sin_cache) + pos * d;
      std::memcpy(c.data(), cr, sizeof(float) * pairs);
      for (int i = 0; i < pairs; ++i) s[i] = sign * cr[pairs + i];
    } else {
      for (int i = 0; i < pairs; ++i)
        r[i] = static_cast<float>(reduce_two_pi(static_cast<double>(pos) * sh.inv_freq[i]));
      HWY_DYNAMIC_DISPATCH(SinCosRow)(r.data(), pairs, sh.m, sign, c.data(), s.data());
    }
    if (p.dtype == ROPECHECK_DTYPE_F32) {
      auto heads = [&](const void* in, void* out, std::int64_t token_stride, std::int64_t head_stride, int n) {
        if (n == 0) return;
        HWY_DYNAMIC_DISPATCH(RotateHeadsF32)(static_cast<const float*>(in) + t * token_stride,
                                             static_cast<float*>(out) + t * token_stride, head_stride, n, hd,
                                             c.data(), s.data(), pairs, interleaved);
      };
      heads(p.q_in, p.q_out, p.q_token_stride, p.q_head_stride, p.num_q_heads);
      heads(p.k_in, p.k_out, p.k_token_stride, p.k_head_stride, p.num_kv_heads);
      continue;
    }
    auto heads16 = [&](const void* in, void* out, std::int64_t token_stride, std::int64_t head_stride, int n) {
      if (n == 0) return;
      HWY_DYNAMIC_DISPATCH(RotateHeads16)(static_cast<const std::uint16_t*>(in) + t * token_stride,
                                          static_cast<std::uint16_t*>(out) + t * token_stride, head_stride, n, hd,
                                          p.dtype, c.data(), s.data(), pairs, interleaved);
    };
    heads16(p.q_in, p.q_out, p.q_token_stride, p.q_head_stride, p.num_q_heads);
    heads16(p.k_in, p.k_out, p.k_token_stride, p.k_head_stride, p.num_kv_heads);
  }
}

ropecheck_status_t apply_mode(Mode mode, const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p,
                              char* err, std::size_t n) {
  if (auto st = check_apply(caps, p, err, n)) return st;
  Shared sh{p, mode, {}, 1.0f};
  if (mode == Mode::kOnTheFly) {
    const EngineFreqs<double> f = engine_frequencies<double>(*p->freq, p->rotary_dim);
    sh.inv_freq = f.inv_freq;
    sh.m = static_cast<float>(f.attention_factor);
  }
  const int threads = static_cast<int>(std::min<std::int64_t>(g_threads.load(), p->num_tokens));
  if (threads <= 1) {
    run_tokens(sh, 0, p->num_tokens);
    return ROPECHECK_OK;
  }
  std::vector<std::thread> pool;
  const std::int64_t chunk = (p->num_tokens + threads - 1) / threads;
  for (int k = 0; k < threads; ++k) {
    const std::int64_t t0 = k * chunk, t1 = std::min(p->num_tokens, t0 + chunk);
    if (t0 < t1) pool.emplace_back(run_tokens, std::cref(sh), t0, t1);
  }
  for (auto& th : pool) th.join();
  return ROPECHECK_OK;
}

constexpr ropecheck_caps_t kCacheCaps = standard_caps(kBothLayouts, ROPECHECK_CAP_COS_SIN_CACHE);
constexpr ropecheck_caps_t kOtfCaps = standard_caps(kBothLayouts, ROPECHECK_CAP_NEGATIVE_POSITIONS);

const char* target_of(void*) { return simd_target_name(); }

ropecheck_status_t apply_cache(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  return apply_mode(Mode::kCache, kCacheCaps, p, err, n);
}
ropecheck_status_t apply_otf(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  return apply_mode(Mode::kOnTheFly, kOtfCaps, p, err, n);
}

}  // namespace

void set_simd_threads(int threads) { g_threads.store(std::clamp(threads, 1, 256)); }
int simd_threads() { return g_threads.load(); }
const char* simd_target_name() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

const ropecheck_impl_t* simd_cache_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "simd_cache", "Highway SIMD, fp32 [max_pos, rotary_dim] cos|sin cache built in double", kCacheCaps,
      libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32), apply_cache,
      build_cos_sin_cache_entry, target_of);
  return &impl;
}

// The on-the-fly policy: frequencies and the product p * w in double, the
// reduction mod 2 pi in double; sin/cos then run in fp32 on the reduced angle
// r (|r| <= pi), so their error is declared as FAST: rounding r to fp32
// (<= 2^-23 rad, moving sin/cos by as much) plus Highway's 3 ulp (<= 3 * 2^-24
// for values in [-1, 1]) is 2.98e-7; we declare 4e-7, up to the angle where
// the reduction stops being exact, and its phase error beyond
// (kernel_support/angle_reduction.h).
constexpr Policy kOtfPolicy = with_fast_range(
    fast_sincos_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, 4e-7, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32),
    kReductionRange, kReductionSlope);

const ropecheck_impl_t* simd_otf_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "simd_otf", "Highway SIMD, angles on the fly: double product reduced mod 2pi, fp32 vector sin/cos", kOtfCaps,
      kOtfPolicy, apply_otf, nullptr, target_of);
  return &impl;
}

}  // namespace ropecheck::impl
#endif  // HWY_ONCE
