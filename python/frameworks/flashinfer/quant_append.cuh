// SPDX-License-Identifier: MIT
// The rope + quantize + append table's call (included once, by
// flashinfer_rope_plugin.cu): RopeQuantizeAppendPagedKVCache on the staged
// buffers, q's fp8 codes and both paged caches copied back.
#pragma once

#include "flashinfer/pos_enc.cuh"
#include "python/frameworks/flashinfer/device_staging.cuh"
#include "python/frameworks/flashinfer/flashinfer_args.h"
#include "ropecheck/kernel_abi.h"

namespace flashinfer_adapter {
namespace {

// q and the caches in fp8 (one QuantType for both): RopeQuantizeAppendPagedKVCache.
template <typename DType, typename IdType, typename QuantT>
cudaError_t launch_quant_append(const ropecheck_apply_params_t& p, const PagedMapping& m, void* const* d) {
  const ropecheck_kv_write_t& w = *p.kv_write;
  const ropecheck_quant_out_t& q = *p.quant_out;
  auto* qi = static_cast<DType*>(d[0]);
  auto* ki = static_cast<DType*>(d[1]);
  auto* vi = static_cast<DType*>(d[2]);
  auto* qo = static_cast<QuantT*>(d[3]);
  const auto rd = static_cast<uint32_t>(p.rotary_dim), nope = static_cast<uint32_t>(p.head_dim - p.rotary_dim);
  flashinfer::paged_kv_t<QuantT, int32_t> kv(
      static_cast<uint32_t>(p.num_kv_heads), static_cast<uint32_t>(w.block_size), static_cast<uint32_t>(p.head_dim),
      1, m.hnd ? flashinfer::QKVLayout::kHND : flashinfer::QKVLayout::kNHD, static_cast<QuantT*>(d[4]),
      static_cast<QuantT*>(d[5]), m.kv_strides, static_cast<int32_t*>(d[6]), static_cast<int32_t*>(d[7]),
      static_cast<int32_t*>(d[8]));
  const auto qs = static_cast<std::size_t>(p.q_token_stride), qh = static_cast<std::size_t>(p.q_head_stride);
  const auto ks = static_cast<std::size_t>(p.k_token_stride), kh = static_cast<std::size_t>(p.k_head_stride);
  const auto vs = static_cast<std::size_t>(w.v_token_stride), vh = static_cast<std::size_t>(w.v_head_stride);
  // q's and k's no-rope channels follow their rope channels in the same rows
  return flashinfer::RopeQuantizeAppendPagedKVCache<DType, IdType, int32_t, QuantT>(
      qi, ki, qi + rd, ki + rd, vi, qo, qo + rd, kv, static_cast<int32_t*>(d[9]), static_cast<int32_t*>(d[10]),
      static_cast<float*>(d[11]), static_cast<IdType*>(d[12]), static_cast<uint32_t>(p.num_tokens),
      static_cast<uint32_t>(p.num_q_heads), static_cast<uint32_t>(p.num_kv_heads), rd, nope, qs, qh, qs, qh, qs, qh, qs,
      qh, ks, kh, ks, kh, vs, vh, q.q_scale, w.k_scale[0], p.layout == ROPECHECK_LAYOUT_INTERLEAVED);
}

template <typename DType, typename IdType>
cudaError_t launch_quant_append_fp8(const ropecheck_apply_params_t& p, const PagedMapping& m, void* const* d) {
  return p.quant_out->dtype == ROPECHECK_KV_FP8_E5M2 ? launch_quant_append<DType, IdType, __nv_fp8_e5m2>(p, m, d)
                                                     : launch_quant_append<DType, IdType, __nv_fp8_e4m3>(p, m, d);
}

template <typename DType>
cudaError_t launch_quant_append_ids(const ropecheck_apply_params_t& p, const PagedMapping& m, void* const* d) {
  return p.position_type == ROPECHECK_INDEX_INT64 ? launch_quant_append_fp8<DType, int64_t>(p, m, d)
                                                  : launch_quant_append_fp8<DType, int32_t>(p, m, d);
}

// The rope + quantize + append table's call: everything staged on the
// device, FlashInfer's launcher, then q's codes and both caches copied back.
ropecheck_status_t apply_quant_append(const ropecheck_apply_params_t& p, char* err, std::size_t n) {
  if (!p.cos_sin_cache || p.cache_dtype != ROPECHECK_DTYPE_F32)
    return fail(err, n, ROPECHECK_INVALID_ARGUMENT, "cos_sin_cache: an fp32 cache (FlashInfer reads float)");
  // FlashInfer reads the row unchecked (pos_enc.cuh:969-970): the bound is the adapter's, before any decline
  for (int64_t i = 0; i < p.num_tokens; ++i) {
    const int64_t id = p.position_type == ROPECHECK_INDEX_INT64 ? static_cast<const int64_t*>(p.positions)[i]
                                                                : static_cast<const int32_t*>(p.positions)[i];
    if (id < 0 || id >= p.cache_max_position)
      return fail(err, n, ROPECHECK_POSITION_OUT_OF_RANGE, "a position outside the cos/sin cache");
  }
  if (std::string why = quant_append_decline(p); !why.empty()) return fail(err, n, ROPECHECK_UNSUPPORTED, why);
  if (std::string why = device_missing(); !why.empty()) return fail(err, n, ROPECHECK_INTERNAL_ERROR, why);
  if (p.num_tokens == 0) return ROPECHECK_OK;
  const ropecheck_kv_write_t& w = *p.kv_write;
  const PagedMapping m = paged_mapping(w, p.num_tokens);
  const std::size_t id_bytes = p.position_type == ROPECHECK_INDEX_INT64 ? 8 : 4;
  const std::size_t q_elems = extent(p.num_tokens, p.num_q_heads, p.head_dim, p.q_token_stride, p.q_head_stride);
  const std::size_t k_elems = extent(p.num_tokens, p.num_kv_heads, p.head_dim, p.k_token_stride, p.k_head_stride);
  const std::size_t v_elems = extent(p.num_tokens, p.num_kv_heads, p.head_dim, w.v_token_stride, w.v_head_stride);
  const std::size_t cache_bytes = static_cast<std::size_t>(w.num_blocks * w.block_stride);  // fp8: a byte each
  const std::size_t cos_sin_bytes = static_cast<std::size_t>(p.cache_max_position) * p.rotary_dim * sizeof(float);
  // 0 q_in, 1 k_in, 2 v, 3 q_out, 4 k_cache, 5 v_cache, 6 indices, 7 indptr, 8 last_page_len,
  // 9 batch_indices, 10 positions, 11 cos_sin_cache, 12 pos_ids
  const std::pair<std::size_t, const void*> staged[13] = {
      {q_elems * 2, p.q_in}, {k_elems * 2, p.k_in}, {v_elems * 2, w.v}, {q_elems, p.q_out},
      {cache_bytes, w.k_cache}, {cache_bytes, w.v_cache}, {m.indices.size() * 4, m.indices.data()},
      {m.indptr.size() * 4, m.indptr.data()}, {m.last_page_len.size() * 4, m.last_page_len.data()},
      {m.batch_indices.size() * 4, m.batch_indices.data()}, {m.positions.size() * 4, m.positions.data()},
      {cos_sin_bytes, p.cos_sin_cache}, {static_cast<std::size_t>(p.num_tokens) * id_bytes, p.positions}};
  DeviceBuffer b[13];
  void* d[13];
  cudaError_t e = cudaSuccess;
  for (int i = 0; i < 13 && e == cudaSuccess; ++i) {
    e = b[i].stage(staged[i].first, staged[i].second);
    d[i] = b[i].p;
  }
  if (e != cudaSuccess) return fail(err, n, ROPECHECK_INTERNAL_ERROR, cuda_error(e, "staging"));
  try {
    e = p.dtype == ROPECHECK_DTYPE_F16 ? launch_quant_append_ids<half>(p, m, d)
                                       : launch_quant_append_ids<nv_bfloat16>(p, m, d);
  } catch (const std::exception& ex) {
    return fail(err, n, ROPECHECK_INTERNAL_ERROR, std::string("FlashInfer: ") + ex.what());
  }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(p.q_out, d[3], q_elems, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(w.k_cache, d[4], cache_bytes, cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(w.v_cache, d[5], cache_bytes, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return fail(err, n, ROPECHECK_INTERNAL_ERROR, cuda_error(e, "launch or copy back"));
  return ROPECHECK_OK;
}

}  // namespace
}  // namespace flashinfer_adapter
