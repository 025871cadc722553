// SPDX-License-Identifier: MIT
// The rotation fused with the KV-cache write (ABI 1.4, CAP_KV_CACHE_WRITE),
// in the two arithmetics the engines ship, each over scalar_naive's
// rotation (fp32 frequencies, fp32 product angle, sinf/cosf, fp32 math):
//   scalar_fused_kv_vllm: the rotated k as stored in the q/k dtype, then
//     sat(x / scale) in fp32 to the cache dtype: vLLM's rotary_embedding
//     followed by reshape_and_cache_flash (csrc/cache_kernels.cu), which its
//     fused kernel matches bit for bit (tests/kernels/attention/
//     test_fused_rope_kvcache.py);
//   scalar_fused_kv_flashinfer: the fp32 rotated k times the quantization
//     scale, then saturated to the cache dtype: FlashInfer's
//     rope_quantize_fp8_append_paged_kv_cache (include/flashinfer/pos_enc.cuh).
// v is copied (scaled and rounded alike). Padding tokens (slot < 0) are
// rotated and not written. An MLA write (ABI 1.5) stores the rotated k_pe
// and the latent kv_c with the entry's one scale, in one entry
// [kv_c | k_pe] (vLLM's concat_and_cache_mla) or two caches (FlashInfer's
// ckv_cache and kpe_cache). The examples to copy for a fused kernel: every
// field read through ropecheck/kv_write.h, every rounding explicit.
#include <cstdint>
#include <cstring>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/kv_store.h"
#include "impls/scalar/scalar_impls.h"
#include "ropecheck/dtype.h"
#include "ropecheck/kv_write.h"

namespace ropecheck::impl {
namespace {

constexpr ropecheck_caps_t kCaps = standard_caps(kBothLayouts, ROPECHECK_CAP_KV_CACHE_WRITE);
constexpr std::uint32_t kAllKvDtypes = (1u << ROPECHECK_KV_DTYPE_COUNT) - 1u;
constexpr std::uint32_t kBothScaleKinds = (1u << ROPECHECK_KV_SCALE_KIND_COUNT) - 1u;

// The params without the write, for the rotation alone.
ropecheck_apply_params_t rotation_only(const ropecheck_apply_params_t& p) {
  ropecheck_apply_params_t r = p;
  r.kv_write = nullptr;
  return r;
}

enum class Style { kVllm, kFlashInfer };

template <Style S>
ropecheck_status_t apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  if (auto s = check_apply(kCaps, p, err, n)) return s;
  const ropecheck_impl_t& rotate = *scalar_naive_impl();
  const ropecheck_kv_write_t* w = kv_write_of(*p);
  const std::int64_t T = p->num_tokens;
  const int H = p->num_kv_heads, D = p->head_dim;
  // FlashInfer's cached k: the rotation redone in fp32 on the inputs
  // converted to fp32 (scalar_naive's arithmetic is fp32 whatever the
  // storage: its fp32 result is its bf16 result before the store), read
  // before the call rotates them (in place, k_in is k_out).
  std::vector<float> k32;
  if (S == Style::kFlashInfer && w != nullptr && T > 0) {
    // A dense fp32 copy of k, rotated by the same kernel in fp32 (no q: a
    // call may have none, num_q_heads 0).
    std::vector<float> k_in(static_cast<std::size_t>(T * H * D));
    k32.resize(k_in.size());
    const std::int64_t seq = p->struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_2 ? p->seq_len : 0;
    for (std::int64_t t = 0; t < T; ++t) {
      const std::int64_t row = seq > 0 ? (t / seq) * p->k_seq_stride + (t % seq) * p->k_token_stride : t * p->k_token_stride;
      for (int h = 0; h < H; ++h)
        for (int c = 0; c < D; ++c)
          k_in[static_cast<std::size_t>((t * H + h) * D + c)] = load_f32(p->k_in, row + h * p->k_head_stride + c, p->dtype);
    }
    ropecheck_apply_params_t fp = rotation_only(*p);
    fp.dtype = ROPECHECK_DTYPE_F32;
    fp.num_q_heads = 0;
    fp.q_in = fp.q_out = nullptr;
    fp.k_in = k_in.data();
    fp.k_out = k32.data();
    fp.k_token_stride = static_cast<std::int64_t>(H) * D;
    fp.k_head_stride = D;
    fp.seq_len = fp.q_seq_stride = fp.k_seq_stride = 0;
    if (auto s = rotate.apply(rotate.ctx, &fp, err, n)) return s;
  }
  const ropecheck_apply_params_t rp = rotation_only(*p);
  if (auto s = rotate.apply(rotate.ctx, &rp, err, n)) return s;
  if (w == nullptr || T == 0) return ROPECHECK_OK;
  const std::int64_t seq = p->struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_2 ? p->seq_len : 0;
  for (std::int64_t t = 0; t < T; ++t) {
    const std::int64_t slot = w->slot_mapping[t];
    if (slot < 0) continue;  // padding: rotated above, nothing cached
    const std::int64_t k_row = seq > 0 ? (t / seq) * p->k_seq_stride + (t % seq) * p->k_token_stride
                                       : t * p->k_token_stride;
    if (kv_is_mla(*w)) {  // ABI 1.5: k_pe (one head) and the latent kv_c, one scale
      const float s = w->k_scale[0];
      const auto scaled = [&](float x) { return S == Style::kVllm ? x / s : x * s; };
      for (int c = 0; c < D; ++c) {
        const float k = S == Style::kVllm ? load_f32(p->k_out, k_row + c, p->dtype)
                                          : k32[static_cast<std::size_t>(t * D + c)];
        store_kv(w->k_cache, mla_k_pe_offset(*w, slot, c), w->cache_dtype, scaled(k), true);
      }
      void* latent = w->cache_kind == ROPECHECK_KV_CACHE_MLA_JOINT ? w->k_cache : w->v_cache;
      for (int c = 0; c < w->latent_dim; ++c)
        store_kv(latent, mla_latent_offset(*w, slot, c), w->cache_dtype,
                 scaled(load_f32(w->v, t * w->v_token_stride + c, p->dtype)), true);
      continue;
    }
    for (int h = 0; h < H; ++h) {
      const float ks = kv_scale_of(w->k_scale, w->scale_kind, h), vs = kv_scale_of(w->v_scale, w->scale_kind, h);
      for (int c = 0; c < D; ++c) {
        const std::int64_t at = kv_element_offset(*w, slot, h, c);
        if (S == Style::kVllm) {
          const float k = load_f32(p->k_out, k_row + h * p->k_head_stride + c, p->dtype);
          store_kv(w->k_cache, at, w->cache_dtype, k / ks, true);
        } else {
          store_kv(w->k_cache, at, w->cache_dtype, k32[static_cast<std::size_t>((t * H + h) * D + c)] * ks, true);
        }
        if (w->v_cache) {
          const float v = load_f32(w->v, t * w->v_token_stride + h * w->v_head_stride + c, p->dtype);
          store_kv(w->v_cache, at, w->cache_dtype, S == Style::kVllm ? v / vs : v * vs, true);
        }
      }
    }
  }
  return ROPECHECK_OK;
}

constexpr ropecheck_kv_policy_t kv_policy(ropecheck_kv_scale_direction_t direction, bool via_storage) {
  return ropecheck_kv_policy_t{sizeof(ropecheck_kv_policy_t), kAllKvDtypes, kBothScaleKinds,
                               static_cast<std::uint32_t>(direction), 1u, via_storage ? 1u : 0u};
}

ropecheck_impl_t fused_table(const char* name, const char* description, ropecheck_caps_t caps,
                             decltype(ropecheck_impl_t::apply) fn, ropecheck_kv_policy_t kv) {
  ropecheck_impl_t t = kernel_table(
      name, description, caps,
      libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32), fn);
  t.kv_policy = kv;
  t.kv_cache_kinds = (1u << ROPECHECK_KV_CACHE_KIND_COUNT) - 1u;  // K and V, and MLA's caches (ABI 1.5)
  return t;
}

}  // namespace

const ropecheck_impl_t* scalar_fused_kv_vllm_impl() {
  static const ropecheck_impl_t impl =
      fused_table("scalar_fused_kv_vllm",
                  "scalar_naive's rotation, then sat(k / k_scale) of the stored k into a paged KV cache (vLLM)", kCaps,
                  apply<Style::kVllm>, kv_policy(ROPECHECK_KV_SCALE_DIVIDE, true));
  return &impl;
}

const ropecheck_impl_t* scalar_fused_kv_flashinfer_impl() {
  static const ropecheck_impl_t impl = fused_table(
      "scalar_fused_kv_flashinfer",
      "scalar_naive's rotation, then sat(fp32 k * quant_scale) into a paged KV cache (FlashInfer)", kCaps,
      apply<Style::kFlashInfer>, kv_policy(ROPECHECK_KV_SCALE_MULTIPLY, false));
  return &impl;
}

}  // namespace ropecheck::impl
