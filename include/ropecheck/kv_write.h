// SPDX-License-Identifier: MIT
/* The KV-cache write of ABI 1.4 (kernel_abi.h, ropecheck_kv_write_t) as both
 * sides read it: whether a call has one, its cache kind (1.5: MLA's latent
 * caches), an element's place in a cache, the size of a cache dtype, and
 * what a valid write is. C++ only, header-only (ROPECHECK_HD: CUDA kernels
 * share it). */
#ifndef ROPECHECK_KV_WRITE_H_
#define ROPECHECK_KV_WRITE_H_

#include <cstddef>
#include <cstdint>

#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The call's cache write: NULL before ABI 1.4's params, and when it has none.
inline const ropecheck_kv_write_t* kv_write_of(const ropecheck_apply_params_t& p) {
  return p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_4 ? p.kv_write : nullptr;
}

// Its cache kind: K_AND_V for a write of ABI 1.4's size.
inline ropecheck_kv_cache_kind_t kv_cache_kind_of(const ropecheck_kv_write_t& w) {
  return w.struct_size >= ROPECHECK_KV_WRITE_SIZE_1_4 + sizeof(std::uint32_t)
             ? static_cast<ropecheck_kv_cache_kind_t>(w.cache_kind)
             : ROPECHECK_KV_CACHE_K_AND_V;
}
inline bool kv_is_mla(const ropecheck_kv_write_t& w) { return kv_cache_kind_of(w) != ROPECHECK_KV_CACHE_K_AND_V; }

constexpr std::size_t kv_dtype_size(std::uint32_t d) {
  return d == ROPECHECK_KV_F32 ? 4 : (d == ROPECHECK_KV_F16 || d == ROPECHECK_KV_BF16) ? 2 : 1;
}

// Element (slot, kv head, channel) of a cache: slot = block * block_size + entry.
ROPECHECK_HD inline std::int64_t kv_element_offset(std::int64_t block_stride, std::int64_t slot_stride,
                                                   std::int64_t head_stride, std::int32_t block_size,
                                                   std::int64_t slot, int head, int channel) {
  return (slot / block_size) * block_stride + (slot % block_size) * slot_stride + head * head_stride + channel;
}
ROPECHECK_HD inline std::int64_t kv_element_offset(const ropecheck_kv_write_t& w, std::int64_t slot, int head,
                                                   int channel) {
  return kv_element_offset(w.block_stride, w.slot_stride, w.head_stride, w.block_size, slot, head, channel);
}

// MLA (1.5): channel c of slot's latent kv_c, and of its rotated k_pe, in
// the cache that holds it (k_cache for JOINT, where k_pe follows the
// latent_dim channels of kv_c; v_cache and k_cache for SPLIT).
ROPECHECK_HD inline std::int64_t mla_latent_offset(const ropecheck_kv_write_t& w, std::int64_t slot, int channel) {
  if (w.cache_kind == ROPECHECK_KV_CACHE_MLA_SPLIT)
    return (slot / w.block_size) * w.v_block_stride + (slot % w.block_size) * w.v_slot_stride + channel;
  return (slot / w.block_size) * w.block_stride + (slot % w.block_size) * w.slot_stride + channel;
}
ROPECHECK_HD inline std::int64_t mla_k_pe_offset(const ropecheck_kv_write_t& w, std::int64_t slot, int channel) {
  const int at = w.cache_kind == ROPECHECK_KV_CACHE_MLA_JOINT ? w.latent_dim : 0;
  return (slot / w.block_size) * w.block_stride + (slot % w.block_size) * w.slot_stride + at + channel;
}

// The scale of kv head h (PER_TENSOR: the one value).
inline float kv_scale_of(const float* scales, std::uint32_t kind, int head) {
  return scales[kind == ROPECHECK_KV_SCALE_PER_HEAD ? head : 0];
}

// nullptr when the write is valid for a call of num_tokens tokens and
// num_kv_heads heads of head_dim channels, rotary_dim of them rotated, else
// the field and the bound.
inline const char* kv_write_error(const ropecheck_kv_write_t& w, std::int64_t num_tokens, int num_kv_heads,
                                  int head_dim, int rotary_dim) {
  if (w.struct_size < sizeof(ropecheck_kv_write_t)) return "kv_write.struct_size: must be >= sizeof(ropecheck_kv_write_t)";
  if (w.cache_dtype >= ROPECHECK_KV_DTYPE_COUNT) return "kv_write.cache_dtype: must be a ropecheck_kv_dtype_t";
  if (w.cache_kind >= ROPECHECK_KV_CACHE_KIND_COUNT) return "kv_write.cache_kind: must be a ropecheck_kv_cache_kind_t";
  if (w.num_blocks < 1 || w.block_size < 1) return "kv_write.num_blocks/block_size: must be >= 1";
  if (w.block_stride < 0 || w.slot_stride < 0 || w.head_stride < 0) return "kv_write strides: must be >= 0";
  if (num_kv_heads < 1) return "kv_write: needs a k (num_kv_heads >= 1)";
  if (w.k_cache == nullptr || w.slot_mapping == nullptr || w.k_scale == nullptr || w.v_scale == nullptr)
    return "kv_write.k_cache/slot_mapping/k_scale/v_scale: must not be null";
  if (w.scale_kind >= ROPECHECK_KV_SCALE_KIND_COUNT) return "kv_write.scale_kind: must be PER_TENSOR or PER_HEAD";
  const int scales = w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? num_kv_heads : 1;
  for (int i = 0; i < scales; ++i)
    if (!(w.k_scale[i] > 0 && w.k_scale[i] < HUGE_VALF) || !(w.v_scale[i] > 0 && w.v_scale[i] < HUGE_VALF))
      return "kv_write.k_scale/v_scale: must be finite and > 0";
  if (w.cache_kind == ROPECHECK_KV_CACHE_K_AND_V) {
    if ((w.v_cache == nullptr) != (w.v == nullptr)) return "kv_write.v/v_cache: both or neither";
    if (w.latent_dim != 0 || w.v_block_stride != 0 || w.v_slot_stride != 0)
      return "kv_write.latent_dim/v_block_stride/v_slot_stride: must be 0 for K_AND_V";
  } else {  // MLA (1.5)
    if (num_kv_heads != 1 || head_dim != rotary_dim)
      return "kv_write.cache_kind: MLA needs one k head (k_pe) with head_dim == rotary_dim";
    if (w.latent_dim < 1 || w.latent_dim > 65536) return "kv_write.latent_dim: must be in [1, 65536] for MLA";
    if (w.v == nullptr) return "kv_write.v: must hold kv_c for MLA";
    if ((w.cache_kind == ROPECHECK_KV_CACHE_MLA_SPLIT) != (w.v_cache != nullptr))
      return "kv_write.v_cache: must be set for MLA_SPLIT (the latent cache) and NULL for MLA_JOINT";
    if (w.cache_kind == ROPECHECK_KV_CACHE_MLA_JOINT ? (w.v_block_stride != 0 || w.v_slot_stride != 0)
                                                     : (w.v_block_stride < 0 || w.v_slot_stride < 0))
      return "kv_write.v_block_stride/v_slot_stride: 0 for MLA_JOINT, >= 0 for MLA_SPLIT";
    if (w.scale_kind != ROPECHECK_KV_SCALE_PER_TENSOR || !exactly_equal(w.v_scale[0], w.k_scale[0]))
      return "kv_write.scale_kind: MLA has one PER_TENSOR scale (v_scale[0] == k_scale[0])";
  }
  const std::int64_t slots = w.num_blocks * w.block_size;
  for (std::int64_t t = 0; t < num_tokens; ++t)
    if (w.slot_mapping[t] >= slots) return "kv_write.slot_mapping: a slot >= num_blocks * block_size";
  if (head_dim < 1) return "head_dim: must be >= 1";
  return nullptr;
}

}  // namespace ropecheck

#endif  // ROPECHECK_KV_WRITE_H_
