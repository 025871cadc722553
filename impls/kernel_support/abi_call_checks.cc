// SPDX-License-Identifier: MIT
// check_apply's checkers of a call's own fields: shape, sequences, capabilities, tensors, frequencies, axes, positions.
#include <algorithm>
#include <cstdio>
#include <string>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/abi_checkers.h"
#include "impls/kernel_support/token_offsets.h"
#include "ropecheck/axes.h"
#include "ropecheck/capabilities.h"

namespace ropecheck::impl::checks {
namespace {

ropecheck_status_t check_tensor(const ropecheck_caps_t& caps, const char* name, const void* in, const void* out,
                                std::int64_t token_stride, std::int64_t head_stride,
                                std::int64_t tokens, int heads, int head_dim, char* err,
                                std::size_t n) {
  const bool in_place = in == out;
  if (!(caps.flags & (in_place ? ROPECHECK_CAP_IN_PLACE : ROPECHECK_CAP_OUT_OF_PLACE))) {
    set_error(err, n, "%s_out: %s not supported by this implementation", name, in_place ? "in-place" : "out-of-place");
    return ROPECHECK_UNSUPPORTED;
  }
  if (in == nullptr || out == nullptr) {
    set_error(err, n, "%s_in/%s_out: must not be null when %s has heads", name, name, name);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (heads > 1 && head_stride < head_dim) {
    set_error(err, n, "%s_head_stride: must be >= head_dim = %d (got %lld)", name, head_dim,
              static_cast<long long>(head_stride));
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (tokens > 1 && token_stride < head_dim) {
    set_error(err, n, "%s_token_stride: must be >= head_dim = %d (got %lld)", name, head_dim,
              static_cast<long long>(token_stride));
    return ROPECHECK_INVALID_ARGUMENT;
  }
  return ROPECHECK_OK;
}

}  // namespace

// The params' size and the call's shape: enums, dimensions, sequences, heads.
ropecheck_status_t check_shape(const ropecheck_caps_t& /*caps*/, const ropecheck_apply_params_t* p, char* err,
                               std::size_t n) {
  // A 1.1 host's params are complete for a 1.1 call: the 1.2 fields read as
  // absent (token_offsets.h).
  if (p->struct_size < ROPECHECK_APPLY_PARAMS_SIZE_1_1) {
    set_error(err, n, "params.struct_size: must be >= %zu (got %u)",
              static_cast<std::size_t>(ROPECHECK_APPLY_PARAMS_SIZE_1_1), p->struct_size);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (p->dtype >= ROPECHECK_DTYPE_COUNT || p->layout >= ROPECHECK_LAYOUT_COUNT ||
      p->direction > ROPECHECK_DIRECTION_INVERSE || p->position_type > ROPECHECK_INDEX_INT64) {
    set_error(err, n, "params: dtype/layout/direction/position_type out of range (%u/%u/%u/%u)",
              p->dtype, p->layout, p->direction, p->position_type);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (p->head_dim < 1 || p->head_dim > 4096) {
    set_error(err, n, "head_dim: must be in [1, 4096] (got %d)", p->head_dim);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (p->rotary_dim < 2 || p->rotary_dim % 2 != 0 || p->rotary_dim > p->head_dim) {
    set_error(err, n, "rotary_dim: must be even, >= 2 and <= head_dim = %d (got %d)", p->head_dim,
              p->rotary_dim);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (p->num_tokens < 0 || p->num_q_heads < 0 || p->num_kv_heads < 0) {
    set_error(err, n, "num_tokens/num_q_heads/num_kv_heads: must be >= 0 (got %lld/%d/%d)",
              static_cast<long long>(p->num_tokens), p->num_q_heads, p->num_kv_heads);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (p->num_kv_heads > 0 && p->num_q_heads % p->num_kv_heads != 0) {
    set_error(err, n, "num_q_heads: must be a multiple of num_kv_heads = %d (got %d)",
              p->num_kv_heads, p->num_q_heads);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  return ROPECHECK_OK;
}

// ABI 1.2's batched sequences and thread count.
ropecheck_status_t check_sequences(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                   std::size_t n) {
  const std::int64_t seq_len = seq_len_of(*p);
  if (seq_len < 0 || (seq_len > 0 && p->num_tokens % seq_len != 0)) {
    set_error(err, n, "seq_len: must be 0 or divide num_tokens = %lld (got %lld)",
              static_cast<long long>(p->num_tokens), static_cast<long long>(seq_len));
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (seq_len > 0 && !(caps.flags & ROPECHECK_CAP_SEQ_STRIDES)) {
    set_error(err, n, "seq_len: batched sequences (%lld tokens each) not supported by this implementation",
              static_cast<long long>(seq_len));
    return ROPECHECK_UNSUPPORTED;
  }
  if (seq_len > 0 && (p->q_seq_stride < 0 || p->k_seq_stride < 0)) {
    set_error(err, n, "q_seq_stride/k_seq_stride: must be >= 0 (got %lld/%lld)",
              static_cast<long long>(p->q_seq_stride), static_cast<long long>(p->k_seq_stride));
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (p->struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_2 && (p->num_threads < 0 || p->reserved1 != 0)) {
    set_error(err, n, "num_threads/reserved1: must be >= 0 / 0 (got %d/%d)", p->num_threads, p->reserved1);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  return ROPECHECK_OK;
}

// What the implementation's capabilities allow of the call's shape.
ropecheck_status_t check_capabilities(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                      std::size_t n) {
  if (!(caps.dtypes & (1u << p->dtype)) || !(caps.layouts & (1u << p->layout))) {
    set_error(err, n, "dtype/layout: %u/%u not among this implementation's capabilities", p->dtype,
              p->layout);
    return ROPECHECK_UNSUPPORTED;
  }
  if (static_cast<std::uint32_t>(p->head_dim) > caps.max_head_dim) {
    set_error(err, n, "head_dim: %d exceeds this implementation's max_head_dim %u", p->head_dim,
              caps.max_head_dim);
    return ROPECHECK_UNSUPPORTED;
  }
  if (p->rotary_dim < p->head_dim && !(caps.flags & ROPECHECK_CAP_PARTIAL_ROTARY)) {
    set_error(err, n, "rotary_dim: partial rotary not supported by this implementation");
    return ROPECHECK_UNSUPPORTED;
  }
  if (p->direction == ROPECHECK_DIRECTION_INVERSE && !(caps.flags & ROPECHECK_CAP_INVERSE)) {
    set_error(err, n, "direction: inverse not supported by this implementation");
    return ROPECHECK_UNSUPPORTED;
  }
  const std::uint32_t pos_cap =
      p->position_type == ROPECHECK_INDEX_INT32 ? ROPECHECK_CAP_POS_INT32 : ROPECHECK_CAP_POS_INT64;
  if (!(caps.flags & pos_cap)) {
    set_error(err, n, "position_type: %u not supported by this implementation", p->position_type);
    return ROPECHECK_UNSUPPORTED;
  }
  return ROPECHECK_OK;
}

// q's and k's pointers and strides, and the positions pointer.
ropecheck_status_t check_tensors(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                 std::size_t n) {
  if (p->num_q_heads > 0)
    if (auto s = check_tensor(caps, "q", p->q_in, p->q_out, p->q_token_stride, p->q_head_stride, p->num_tokens,
                              p->num_q_heads, p->head_dim, err, n))
      return s;
  if (p->num_kv_heads > 0)
    if (auto s = check_tensor(caps, "k", p->k_in, p->k_out, p->k_token_stride, p->k_head_stride, p->num_tokens,
                              p->num_kv_heads, p->head_dim, err, n))
      return s;
  if (p->positions == nullptr) {
    set_error(err, n, "positions: must not be null");
    return ROPECHECK_INVALID_ARGUMENT;
  }
  return ROPECHECK_OK;
}

// A cache of its own (COS_SIN_CACHE, fp32 from build_cache) or the
// caller's (1.6, CALLER_COS_SIN_CACHE: fp32, fp16 or bf16; which of them a
// kernel reads its table's cos_sin_cache_dtypes says, and the kernel
// checks).
namespace {

bool reads_cache(const ropecheck_caps_t& caps) {
  return (caps.flags & (ROPECHECK_CAP_CALLER_COS_SIN_CACHE | ROPECHECK_CAP_COS_SIN_CACHE)) != 0;
}

}  // namespace

// The cos/sin cache, or without one the frequency spec; its scheme and
// the spec's flags the capabilities restrict.
ropecheck_status_t check_frequencies(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                     std::size_t n) {
  const bool caller_cache = (caps.flags & ROPECHECK_CAP_CALLER_COS_SIN_CACHE) != 0;
  if (reads_cache(caps)) {
    if (p->cos_sin_cache == nullptr || p->cache_max_position < 1) {
      set_error(err, n, "cos_sin_cache: required by this implementation (got %s, %lld rows)",
                p->cos_sin_cache ? "a pointer" : "null",
                static_cast<long long>(p->cache_max_position));
      return ROPECHECK_INVALID_ARGUMENT;
    }
    const bool dtype_ok = p->cache_dtype == ROPECHECK_DTYPE_F32 ||
                          (caller_cache && (p->cache_dtype == ROPECHECK_DTYPE_F16 || p->cache_dtype == ROPECHECK_DTYPE_BF16));
    if (!dtype_ok) {
      set_error(err, n, "cache_dtype: %s caches are supported (got %u)", caller_cache ? "f32, f16 and bf16" : "only f32",
                p->cache_dtype);
      return ROPECHECK_UNSUPPORTED;
    }
  } else if (auto s = check_freq_spec(p->freq, p->rotary_dim, err, n)) {
    return s;
  }
  if (p->freq != nullptr && !(caps.schemes & (1u << p->freq->scheme))) {
    set_error(err, n, "freq.scheme: %u not supported by this implementation", p->freq->scheme);
    return ROPECHECK_UNSUPPORTED;
  }
  if (p->freq != nullptr) {
    const ropecheck_freq_spec_t& f = *p->freq;
    if (const char* why = outside_spec_flags(caps.flags, f.scheme, f.truncate, f.has_attention_factor, f.seq_len,
                                             f.original_max_position, f.mscale, f.mscale_all_dim)) {
      set_error(err, n, "%s", why);
      return ROPECHECK_UNSUPPORTED;
    }
  }
  return ROPECHECK_OK;
}

// ABI 1.3's multi-axis fields: granted, and a valid assignment
// (ropecheck/axes.h) with a stride that keeps the rows apart.
ropecheck_status_t check_axes(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                              std::size_t n) {
  if (p->struct_size < ROPECHECK_APPLY_PARAMS_SIZE_1_3) return ROPECHECK_OK;
  if (p->reserved2 != 0) {
    set_error(err, n, "reserved2: must be 0 (got %u)", p->reserved2);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (p->num_axes == 0) return ROPECHECK_OK;
  const std::string why =
      axes_error(p->rotary_dim / 2, p->num_axes, p->axis_assignment, p->axis_sections, p->pair_axis);
  if (!why.empty()) {
    set_error(err, n, "%s", why.c_str());
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (p->position_axis_stride < p->num_tokens) {
    set_error(err, n, "position_axis_stride: must be >= num_tokens = %lld (got %lld)",
              static_cast<long long>(p->num_tokens), static_cast<long long>(p->position_axis_stride));
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (!(caps.flags & axis_assignment_cap(p->axis_assignment))) {
    set_error(err, n, "axis_assignment: %u not supported by this implementation", p->axis_assignment);
    return ROPECHECK_UNSUPPORTED;
  }
  if (p->axis_frequencies > ROPECHECK_AXIS_FREQ_PER_AXIS) {
    set_error(err, n, "axis_frequencies: must be SHARED or PER_AXIS (got %u)", p->axis_frequencies);
    return ROPECHECK_INVALID_ARGUMENT;
  }
  if (p->axis_frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS) {
    if (!(caps.flags & ROPECHECK_CAP_AXIS_FREQUENCIES)) {
      set_error(err, n, "axis_frequencies: per-axis frequencies not supported by this implementation");
      return ROPECHECK_UNSUPPORTED;
    }
    if (p->freq == nullptr ||
        (p->freq->scheme != ROPECHECK_SCHEME_DEFAULT && p->freq->scheme != ROPECHECK_SCHEME_LINEAR)) {
      set_error(err, n, "axis_frequencies: per-axis frequencies are defined for the default and linear schemes");
      return ROPECHECK_INVALID_ARGUMENT;
    }
  }
  return ROPECHECK_OK;
}

// Every position id: inside the cache a kernel reads, negative only where
// the capabilities allow.
ropecheck_status_t check_positions(const ropecheck_caps_t& caps, const ropecheck_apply_params_t* p, char* err,
                                   std::size_t n) {
  const bool cache = reads_cache(caps);
  const int axes = std::max(axes_of(p), 1);
  // "positions[7]", or "positions[axis 1, token 7]" for multi-axis calls:
  // formatted only for the error (a format per token was a tenth of a
  // decode call's time, bench/rope_bench).
  const auto name = [&](int a, std::int64_t t) {
    char at[64];
    if (axes_of(p) > 0)
      std::snprintf(at, sizeof at, "positions[axis %d, token %lld]", a, static_cast<long long>(t));
    else
      std::snprintf(at, sizeof at, "positions[%lld]", static_cast<long long>(t));
    return std::string(at);
  };
  const bool negative_ok = (caps.flags & ROPECHECK_CAP_NEGATIVE_POSITIONS) != 0;
  for (int a = 0; a < axes; ++a)
    for (std::int64_t t = 0; t < p->num_tokens; ++t) {
      const std::int64_t pos = position_at(p, t, a);
      if (cache && (pos < 0 || pos >= p->cache_max_position)) {
        set_error(err, n, "%s: %lld outside the cos/sin cache [0, %lld)", name(a, t).c_str(),
                  static_cast<long long>(pos), static_cast<long long>(p->cache_max_position));
        return ROPECHECK_POSITION_OUT_OF_RANGE;
      }
      if (pos < 0 && !negative_ok) {
        set_error(err, n, "%s: negative (%lld) not supported by this implementation", name(a, t).c_str(),
                  static_cast<long long>(pos));
        return ROPECHECK_UNSUPPORTED;
      }
    }
  return ROPECHECK_OK;
}

}  // namespace ropecheck::impl::checks
