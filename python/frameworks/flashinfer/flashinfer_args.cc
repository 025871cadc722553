// SPDX-License-Identifier: MIT
// See flashinfer_args.h.
#include "python/frameworks/flashinfer/flashinfer_args.h"

#include <algorithm>

#include "ropecheck/float_compare.h"

namespace flashinfer_adapter {

std::string rope_args(Entry e, const ropecheck_freq_spec_t& f, RopeArgs* out) {
  RopeArgs a;
  a.rope_theta = static_cast<float>(f.base);
  switch (e) {
    case Entry::kPosIds:
      // apply_rope_pos_ids(rope_scale, rope_theta): freq * (1 / rope_scale) is linear
      // interpolation (pos_enc.cuh:716 with smooth_a = smooth_b = 0, 1603-1604)
      if (f.scheme == ROPECHECK_SCHEME_DEFAULT) return (*out = a, "");
      if (f.scheme == ROPECHECK_SCHEME_LINEAR) {
        a.rope_scale = static_cast<float>(f.factor);
        return (*out = a, "");
      }
      return "scheme: apply_rope_pos_ids takes rope_scale and rope_theta (default, linear)";
    case Entry::kLlama31:
      // apply_llama31_rope_pos_ids(rope_scale, rope_theta, low_freq_factor, high_freq_factor,
      // old_context_len): pos_enc.cuh:1821-1824 form smooth_a / smooth_b from them
      if (f.scheme != ROPECHECK_SCHEME_LLAMA3) return "scheme: apply_llama31_rope_pos_ids is Llama 3.1's";
      a.rope_scale = static_cast<float>(f.factor);
      a.low_freq_factor = static_cast<float>(f.low_freq_factor);
      a.high_freq_factor = static_cast<float>(f.high_freq_factor);
      a.old_context_length = static_cast<float>(f.original_max_position);
      return (*out = a, "");
    case Entry::kCosSinCache:
    case Entry::kRopeQuantizeAppend:
      return (*out = a, "");  // the caller's cache carries the scheme
  }
  return "unknown entry";
}

bool head_dim_dispatched(int head_dim) {
  return head_dim == 64 || head_dim == 128 || head_dim == 256 || head_dim == 512;
}

int vector_size(Entry e, int head_dim, int dtype_bytes) {
  if (e == Entry::kRopeQuantizeAppend) return 32 / dtype_bytes;  // pos_enc.cuh:1342
  if (e == Entry::kCosSinCache && !head_dim_dispatched(head_dim)) return 32 / dtype_bytes;
  return std::max(16 / dtype_bytes, head_dim / 32);
}

std::string vector_fit(Entry e, int head_dim, int rotary_dim, uint32_t layout, int dtype_bytes) {
  const int v = vector_size(e, head_dim, dtype_bytes);
  const int span = layout == ROPECHECK_LAYOUT_HALF_SPLIT ? rotary_dim / 2 : rotary_dim;
  if (span % v == 0) return "";
  return std::string(layout == ROPECHECK_LAYOUT_HALF_SPLIT ? "rotary_dim/2" : "rotary_dim") +
         " not a multiple of FlashInfer's " + std::to_string(v) + "-channel vector";
}

PagedMapping paged_mapping(const ropecheck_kv_write_t& w, int64_t num_tokens) {
  PagedMapping m;
  m.indptr = {0, static_cast<int32_t>(w.num_blocks)};
  for (int64_t b = 0; b < w.num_blocks; ++b) m.indices.push_back(static_cast<int32_t>(b));
  m.last_page_len = {w.block_size};
  for (int64_t t = 0; t < num_tokens; ++t) {
    const int64_t slot = w.slot_mapping[t];
    m.batch_indices.push_back(slot < 0 ? -1 : 0);
    m.positions.push_back(slot < 0 ? 0 : static_cast<int32_t>(slot));
  }
  // HND: a head's entries adjacent ([blocks, heads, block_size, head_dim]).
  m.hnd = w.head_stride > w.slot_stride;
  m.kv_strides[0] = w.block_stride;
  m.kv_strides[1] = m.hnd ? w.head_stride : w.slot_stride;
  m.kv_strides[2] = m.hnd ? w.slot_stride : w.head_stride;
  return m;
}

std::string quant_append_decline(const ropecheck_apply_params_t& p) {
  const ropecheck_quant_out_t* q = p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_8 ? p.quant_out : nullptr;
  const ropecheck_kv_write_t* w = p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_4 ? p.kv_write : nullptr;
  if (q == nullptr || w == nullptr)
    return "rope_quantize_fp8_append_paged_kv_cache writes an fp8 q and appends k and v: a call without both";
  if (p.dtype != ROPECHECK_DTYPE_F16 && p.dtype != ROPECHECK_DTYPE_BF16) return "dtype: fp16 and bf16 inputs only";
  if (w->cache_dtype != q->dtype) return "one fp8 type for q and the cache (QuantType)";
  if (w->cache_kind != ROPECHECK_KV_CACHE_K_AND_V) return "the MLA caches are another launcher";
  if (w->v == nullptr || w->v_cache == nullptr) return "v: FlashInfer appends a v with every k";
  if (w->scale_kind != ROPECHECK_KV_SCALE_PER_TENSOR || !ropecheck::exactly_equal(w->k_scale[0], w->v_scale[0]))
    return "one scale for k and v (quant_scale_kv)";
  if (w->num_blocks * w->block_size > (int64_t{1} << 31) - 1) return "slots beyond int32 page indices";
  const int no_rope = p.head_dim - p.rotary_dim;
  if (no_rope % p.rotary_dim != 0) return "head_dim - rotary_dim not a multiple of rotary_dim (its no-rope chunks)";
  return vector_fit(Entry::kRopeQuantizeAppend, p.head_dim, p.rotary_dim, p.layout, 2);
}

}  // namespace flashinfer_adapter
