// SPDX-License-Identifier: MIT
// Host-side adapter shared by the device launcher and the host simulation:
// validates an ABI call and fills the kernel parameters (frequencies and
// attention factor computed by the implementation's own engine code, on the
// host, in double: declared in the policy).
#ifndef ROPECHECK_IMPLS_CUDA_PARAMS_FROM_ABI_H_
#define ROPECHECK_IMPLS_CUDA_PARAMS_FROM_ABI_H_

#include <cstddef>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/cache_builder.h"
#include "impls/kernel_support/engine_freqs.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/pair_axes.h"
#include "impls/kernel_support/token_offsets.h"
#include "impls/cuda/rope_cuda_math.cuh"

namespace ropecheck::cuda {

inline constexpr ropecheck_caps_t kCacheCaps =
    impl::standard_caps(impl::kBothLayouts, ROPECHECK_CAP_COS_SIN_CACHE | impl::kAllAxisForms);
inline constexpr ropecheck_caps_t kOtfCaps = impl::standard_caps(
    impl::kBothLayouts, ROPECHECK_CAP_NEGATIVE_POSITIONS | impl::kAllAxisForms | ROPECHECK_CAP_AXIS_FREQUENCIES);

// What Params points into on the host: the on-the-fly frequencies (each
// pair's own) and a multi-axis call's pair-to-axis map.
struct HostTables {
  std::vector<double> freqs;
  std::vector<int> pair_axis;
};

// The on-the-fly policy: frequencies and p*w in double on the way to a
// three-part reduction mod 2 pi, then __sincosf on |r| <= pi. Declared error:
// 2^-21.19 (CUDA C++ Programming Guide, __cosf on [-pi, pi]; __sinf 2^-21.41)
// + 2^-23 (rounding r to fp32) = 5.4e-7, declared as 6e-7, up to the angle
// where the reduction stops being exact, and its phase error beyond
// (kernel_support/angle_reduction.h).
inline constexpr Policy kOtfPolicy = with_fast_range(
    fast_sincos_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, 6e-7, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32),
    impl::kReductionRange, impl::kReductionSlope);
inline constexpr ropecheck_policy_t kCachePolicy = impl::kCacheBuilderPolicy;  // the host builds the table

// Fills p (host pointers) from an ABI call; `tables` holds what p.inv_freq
// and p.pair_axis point into. Returns a status like check_apply.
inline ropecheck_status_t params_from_abi(bool cache_mode, const ropecheck_apply_params_t* a, Params* p,
                                          HostTables* tables, char* err, std::size_t n) {
  if (auto st = impl::check_apply(cache_mode ? kCacheCaps : kOtfCaps, a, err, n)) return st;
  *p = Params{};
  p->tokens = a->num_tokens;
  p->q_heads = a->num_q_heads;
  p->kv_heads = a->num_kv_heads;
  p->head_dim = a->head_dim;
  p->rotary_dim = a->rotary_dim;
  p->dtype = static_cast<int>(a->dtype);
  p->layout = static_cast<int>(a->layout);
  p->sign = a->direction == ROPECHECK_DIRECTION_INVERSE ? -1.0f : 1.0f;
  p->q_in = a->q_in;
  p->q_out = a->q_out;
  p->q_token_stride = a->q_token_stride;
  p->q_head_stride = a->q_head_stride;
  p->k_in = a->k_in;
  p->k_out = a->k_out;
  p->k_token_stride = a->k_token_stride;
  p->k_head_stride = a->k_head_stride;
  p->seq_len = impl::seq_len_of(*a);
  p->q_seq_stride = p->seq_len > 0 ? a->q_seq_stride : 0;
  p->k_seq_stride = p->seq_len > 0 ? a->k_seq_stride : 0;
  p->positions = a->positions;
  p->positions_are_int64 = a->position_type == ROPECHECK_INDEX_INT64;
  const impl::PairAxisMap axes = impl::pair_axis_map(*a);
  if (axes.axes > 0) {
    tables->pair_axis = axes.axis;
    p->axes = axes.axes;
    p->axis_stride = a->position_axis_stride;
    p->pair_axis = tables->pair_axis.data();
  }
  if (cache_mode) {
    p->cache = static_cast<const float*>(a->cos_sin_cache);
    p->cache_rows = a->cache_max_position;
  } else {
    const impl::EngineFreqs<double> f = impl::pair_frequencies<double>(*a, axes);
    tables->freqs = f.inv_freq;
    p->inv_freq = tables->freqs.data();
    p->m = static_cast<float>(f.attention_factor);
  }
  p->vec = choose_vec(*p);
  return ROPECHECK_OK;
}

}  // namespace ropecheck::cuda

#endif  // ROPECHECK_IMPLS_CUDA_PARAMS_FROM_ABI_H_
