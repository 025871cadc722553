// SPDX-License-Identifier: MIT
// Highway dispatch file for the SIMD RoPE kernels, in Highway's four parts:
// HWY_TARGET_INCLUDE, foreach_target.h, the per-target body
// (rope_simd-inl.h), and the HWY_ONCE block with the ABI entry points: the
// contract check, the job, its split over threads, and the two tables; the
// job and the split are shared with the fused kernel (simd_call.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impls/simd/rope_simd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <hwy/highway.h>

#include "impls/simd/rope_simd-inl.h"

#if HWY_ONCE
#include <hwy/targets.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/angle_reduction.h"
#include "impls/kernel_support/cache_builder.h"
#include "impls/kernel_support/freq_memo.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/pair_axes.h"
#include "impls/kernel_support/token_offsets.h"
#include "impls/simd/row_split.h"
#include "impls/simd/simd_call.h"
#include "impls/simd/simd_impls.h"
#include "impls/simd/simd_job.h"
#include "impls/simd/worker_pool.h"
#include "ropecheck/names.h"

namespace ropecheck::impl {

HWY_EXPORT(RunRows);
HWY_EXPORT(SinCosRow);
HWY_EXPORT(WidenF16Row);
HWY_EXPORT(NarrowBf16Row);
HWY_EXPORT(TargetName);

namespace {

std::atomic<int> g_threads{1};

// Per-thread scratch, grown on demand and kept between calls (a decode step
// must not pay an allocation per call), zeroed when it grows so whole-vector
// loops past the last pair read defined values.
float* thread_scratch(std::int64_t floats) {
  thread_local std::vector<float> buf;
  if (static_cast<std::int64_t>(buf.size()) < floats) buf.assign(static_cast<std::size_t>(floats), 0.0f);
  return buf.data();
}

// The on-the-fly frequencies of the calling thread's last spec, padded with
// zeros to padded_pairs() entries for the vector loops.
struct OtfFreqs {
  FreqMemo memo;
  std::vector<double> padded;
  float m = 1.0f;
};

const OtfFreqs& otf_freqs(const ropecheck_freq_spec_t& spec, int rotary_dim) {
  thread_local OtfFreqs f;
  bool changed = false;
  const EngineFreqs<double>& e = f.memo.get(spec, rotary_dim, &changed);
  if (changed || f.padded.empty()) {
    f.padded.assign(static_cast<std::size_t>(padded_pairs(rotary_dim / 2)), 0.0);
    std::copy(e.inv_freq.begin(), e.inv_freq.end(), f.padded.begin());
    f.m = static_cast<float>(e.attention_factor);
  }
  return f;
}

constexpr ropecheck_caps_t kCacheCaps = standard_caps(kBothLayouts, ROPECHECK_CAP_COS_SIN_CACHE | kAllAxisForms);
constexpr ropecheck_caps_t kOtfCaps =
    standard_caps(kBothLayouts, ROPECHECK_CAP_NEGATIVE_POSITIONS | kAllAxisForms | ROPECHECK_CAP_AXIS_FREQUENCIES);

const char* target_of(void*) { return simd_target_name(); }

// ROPECHECK_SIMD_TARGET, applied once per process: "" when unset or valid,
// else why not.
const std::string& target_pin_error() {
  static const std::string error = [] {
    const char* want = std::getenv(kSimdTargetEnv);
    if (want == nullptr || *want == '\0') return std::string();
    std::string known;
    for (const std::int64_t bit : simd_runnable_targets()) {
      if (std::strcmp(hwy::TargetName(bit), want) == 0) {
        hwy::SetSupportedTargetsForTest(bit);
        return std::string();
      }
      known += std::string(known.empty() ? "" : ", ") + hwy::TargetName(bit);
    }
    return std::string(kSimdTargetEnv) + "=" + want + ": not a Highway target this build has and this CPU runs (" +
           known + ")";
  }();
  return error;
}

}  // namespace

// What every SIMD entry point shares (simd_call.h).

ropecheck_status_t check_simd_target(char* err, std::size_t n) {
  const std::string& why = target_pin_error();
  if (why.empty()) return ROPECHECK_OK;
  if (err != nullptr && n > 0) std::snprintf(err, n, "%s", why.c_str());
  return ROPECHECK_INVALID_ARGUMENT;
}

SimdJob simd_job_of(const ropecheck_apply_params_t& p) {
  SimdJob j;
  const TensorStrides qs = q_strides(p), ks = k_strides(p);
  j.q = {p.q_in, p.q_out, qs.token, qs.head, p.num_q_heads, qs.seq, qs.seq_len};
  j.k = {p.k_in, p.k_out, ks.token, ks.head, p.num_kv_heads, ks.seq, ks.seq_len};
  j.threads = threads_of(p);
  j.num_tokens = p.num_tokens;
  j.head_dim = p.head_dim;
  j.pairs = p.rotary_dim / 2;
  j.dtype = p.dtype;
  j.interleaved = p.layout == ROPECHECK_LAYOUT_INTERLEAVED;
  j.positions = p.positions;
  j.positions_int32 = p.position_type == ROPECHECK_INDEX_INT32;
  j.sign = p.direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  return j;
}

void set_simd_job_axes(const ropecheck_apply_params_t& p, const PairAxisMap& m, SimdJob* j) {
  if (m.axes == 0) return;
  j->axes = m.axes;
  j->pair_axis = m.axis.data();
  j->axis_stride = p.position_axis_stride;
}

void run_simd_rows(const SimdJob& j, const std::function<void(std::int64_t, std::int64_t, float*)>& rows) {
  const std::vector<RowRange> ranges = split_rows(j, j.threads > 0 ? std::min(j.threads, 256) : g_threads.load());
  run_parallel(static_cast<int>(ranges.size()),
               [&](int w) { rows(ranges[w].begin, ranges[w].end, thread_scratch(scratch_floats(j))); });
}

namespace {

void run_job(const SimdJob& j) {
  run_simd_rows(j, [&](std::int64_t begin, std::int64_t end, float* scratch) {
    HWY_DYNAMIC_DISPATCH(RunRows)(j, begin, end, scratch);
  });
}

ropecheck_status_t apply_cache(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto st = check_simd_target(err, n)) return st;
  if (auto st = check_apply(kCacheCaps, p, err, n)) return st;
  SimdJob j = simd_job_of(*p);
  j.cache = static_cast<const float*>(p->cos_sin_cache);
  const PairAxisMap axes = pair_axis_map(*p);
  set_simd_job_axes(*p, axes, &j);
  run_job(j);
  return ROPECHECK_OK;
}

ropecheck_status_t apply_otf(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto st = check_simd_target(err, n)) return st;
  if (auto st = check_apply(kOtfCaps, p, err, n)) return st;
  SimdJob j = simd_job_of(*p);
  const OtfFreqs& f = otf_freqs(*p->freq, p->rotary_dim);
  j.inv_freq = f.padded.data();
  j.m = f.m;
  const PairAxisMap axes = pair_axis_map(*p);
  set_simd_job_axes(*p, axes, &j);
  // Per-axis frequencies: each pair's own (pair_axes.h), padded as above.
  std::vector<double> per_axis;
  if (axes.axes > 0 && p->axis_frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS) {
    const EngineFreqs<double> e = pair_frequencies<double>(*p, axes);
    per_axis.assign(static_cast<std::size_t>(padded_pairs(j.pairs)), 0.0);
    std::copy(e.inv_freq.begin(), e.inv_freq.end(), per_axis.begin());
    j.inv_freq = per_axis.data();
  }
  run_job(j);
  return ROPECHECK_OK;
}

}  // namespace

void set_simd_threads(int threads) { g_threads.store(std::clamp(threads, 1, 256)); }
int simd_threads() { return g_threads.load(); }
const char* simd_target_name() {
  (void)target_pin_error();
  return HWY_DYNAMIC_DISPATCH(TargetName)();
}
std::string simd_target_pin_error() { return target_pin_error(); }
std::int64_t simd_compiled_targets() { return HWY_TARGETS; }
std::int64_t simd_baseline_target() { return HWY_STATIC_TARGET; }
std::vector<std::int64_t> simd_runnable_targets() {
  std::vector<std::int64_t> v;
  for (std::int64_t t = hwy::SupportedTargets() & HWY_TARGETS; t != 0; t &= t - 1) v.push_back(t & -t);
  return v;
}

void simd_sincos_row(double position, const double* inv_freq, int pairs, float* c, float* s) {
  std::vector<double> padded(static_cast<std::size_t>(padded_pairs(pairs)), 0.0);
  std::copy(inv_freq, inv_freq + pairs, padded.begin());
  std::vector<float> scratch(static_cast<std::size_t>(8 * padded_pairs(pairs)), 0.0f);
  HWY_DYNAMIC_DISPATCH(SinCosRow)(position, padded.data(), pairs, scratch.data(), c, s);
}

void simd_widen_f16(const std::uint16_t* in, int n, float* out) { HWY_DYNAMIC_DISPATCH(WidenF16Row)(in, n, out); }
void simd_narrow_bf16(const float* in, int n, std::uint16_t* out) {
  HWY_DYNAMIC_DISPATCH(NarrowBf16Row)(in, n, out);
}

const ropecheck_impl_t* simd_cache_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "simd_cache", "Highway SIMD, fp32 [max_pos, rotary_dim] cos|sin cache built in double", kCacheCaps,
      kCacheBuilderPolicy, apply_cache,
      build_cos_sin_cache_entry, target_of);
  return &impl;
}

// The on-the-fly policy: frequencies and the product p * w in double, the
// reduction (mod 2 pi, then to the quadrant) in double; sin/cos then run in
// fp32 on the reduced angle, declared FAST with the bound derived in
// docs/SIMD.md: rounding the reduced angle to fp32 plus the polynomial's
// approximation and evaluation errors is at most 9.6e-8; we declare 1e-7, up
// to the angle where the reduction stops being exact, and its phase error
// beyond (kernel_support/angle_reduction.h).
constexpr Policy kOtfPolicy = with_fast_range(
    fast_sincos_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, 1e-7, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32),
    kReductionRange, kReductionSlope);

const ropecheck_impl_t* simd_otf_impl() {
  static const ropecheck_impl_t impl = kernel_table(
      "simd_otf", "Highway SIMD, angles on the fly: double product reduced to the quadrant, fp32 vector sin/cos",
      kOtfCaps, kOtfPolicy, apply_otf, nullptr, target_of);
  return &impl;
}

}  // namespace ropecheck::impl
#endif  // HWY_ONCE
