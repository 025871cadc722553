// SPDX-License-Identifier: MIT
// Host-only half of the FlashInfer plugin (flashinfer_rope_plugin.cu): what a
// ropecheck call becomes in FlashInfer's arguments, and which calls FlashInfer
// cannot take. No CUDA here, so flashinfer_args_test.cc runs it on any host.
// Line numbers are those of flashinfer-python 0.7.2.post1's
// flashinfer/data/include/flashinfer/ (pos_enc.cuh, utils.cuh).
#ifndef ROPECHECK_FRAMEWORKS_FLASHINFER_ARGS_H_
#define ROPECHECK_FRAMEWORKS_FLASHINFER_ARGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"

namespace flashinfer_adapter {

// Which FlashInfer host function a table calls.
enum class Entry {
  kPosIds,       // BatchQKApplyRotaryPosIds (pos_enc.cuh:1594-1671): apply_rope_pos_ids
  kLlama31,      // BatchQKApplyLlama31RotaryPosIds (pos_enc.cuh:1813-1876): apply_llama31_rope_pos_ids
  kCosSinCache,  // BatchQKApplyRotaryPosIdsCosSinCache (pos_enc.cuh:1488-1592): apply_rope_with_cos_sin_cache
  // RopeQuantizeAppendPagedKVCache (pos_enc.cuh:1327-1393, kernel 897-1125):
  // rope_quantize_fp8_append_paged_kv_cache, GQA/MHA (ABI 1.8's quantized q
  // with 1.4's KV-cache write)
  kRopeQuantizeAppend,
};

// The scalars FlashInfer's launchers take, as its Python binding passes them
// (csrc/rope.cu: double rope_scale / rope_theta, narrowed to the launchers'
// float parameters).
struct RopeArgs {
  float rope_scale = 1.0f;
  float rope_theta = 10000.0f;
  float low_freq_factor = 1.0f;
  float high_freq_factor = 4.0f;
  float old_context_length = 8192.0f;
};

// The arguments of a call's frequency spec for `e`, or why FlashInfer has none
// (a scheme the table does not declare reaching here is an internal error).
std::string rope_args(Entry e, const ropecheck_freq_spec_t& f, RopeArgs* out);

// DISPATCH_HEAD_DIM (utils.cuh:200-228) instantiates head_dim 64, 128, 256 and
// 512 only; another head_dim throws "Unsupported head_dim" in the pos_ids
// launchers. The cos/sin-cache launcher sends the others to RopeQuantize
// (pos_enc.cuh:1502, 1573-1591).
bool head_dim_dispatched(int head_dim);

// Channels per thread of the kernel a call reaches: max(16 / sizeof(DType),
// HEAD_DIM / 32) for the dispatched head dims (pos_enc.cuh:1610, 1509), 32 /
// sizeof(DType) in RopeQuantize (pos_enc.cuh:1251).
int vector_size(Entry e, int head_dim, int dtype_bytes);

// Whether FlashInfer's vectors fit the rotary part: a thread rotates
// vec_size channels with one partner offset and sign, chosen by the first
// channel (vec_apply_llama_rope_cos_sin, pos_enc.cuh:129-148; the
// interleaved forms 161-235), and rotates every channel of a vector that
// starts below rotary_dim (pos_enc.cuh:136, 188, 225). So a vector that
// straddles rotary_dim/2 (half split) or rotary_dim rotates channels with
// the wrong partner, or rotates pass-through channels. "" when it fits,
// else why not.
std::string vector_fit(Entry e, int head_dim, int rotary_dim, uint32_t layout, int dtype_bytes);

// rope_quantize_fp8_append_paged_kv_cache's paged cache, from a ropecheck
// call's kv_write (ABI 1.4): one request (batch index 0) owning every block
// in order (indptr {0, num_blocks}, indices 0..num_blocks-1), so FlashInfer's
// page location indptr[0] * page_size + positions[t] (pos_enc.cuh:955-957),
// split by page_size into (page, entry), is the slot's (block, entry).
// A padding token (slot < 0) gets batch index -1, which FlashInfer skips
// whole (pos_enc.cuh:951-952: "skip padding tokens with batch_indices < 0"),
// q included: the ABI asks for its q all the same, so such a case shows it.
struct PagedMapping {
  std::vector<int32_t> batch_indices, positions;  // per token
  std::vector<int32_t> indptr, indices, last_page_len;
  bool hnd = false;
  // paged_kv_t's custom strides (page.cuh:136-157): {page, n, h} for NHD,
  // {page, h, n} for HND, in cache elements.
  int64_t kv_strides[3] = {0, 0, 0};
};
PagedMapping paged_mapping(const ropecheck_kv_write_t& w, int64_t num_tokens);

// "" when rope_quantize_fp8_append_paged_kv_cache can take the call, else
// why not (a MAY_DECLINE reason): it needs the quantized output and the
// cache write together; fp16/bf16 inputs; one fp8 type for q and the cache
// (its QuantType template parameter); one scale for k and v
// (quant_scale_kv, PER_TENSOR); K and V caches (the MLA form is another
// launcher); and vectors that fit (32 / sizeof(DType) channels per thread,
// pos_enc.cuh:1342; the no-rope part in chunks of rope_dim, 1349).
std::string quant_append_decline(const ropecheck_apply_params_t& p);

}  // namespace flashinfer_adapter

#endif  // ROPECHECK_FRAMEWORKS_FLASHINFER_ARGS_H_
