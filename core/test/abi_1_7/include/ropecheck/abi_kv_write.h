// SPDX-License-Identifier: MIT
/* Part of the kernel ABI (kernel_abi.h, which includes it; include that):
 * 1.4's KV-cache write, what a call hands a kernel granting
 * CAP_KV_CACHE_WRITE (ropecheck_kv_write_t) and what such a table declares
 * of it (ropecheck_kv_policy_t). ropecheck/kv_write.h reads it. */
#ifndef ROPECHECK_ABI_KV_WRITE_H_
#define ROPECHECK_ABI_KV_WRITE_H_

#include <stddef.h>
#include <stdint.h>

/* 1.4: the dtypes a KV cache is stored in: the OCP 8-bit formats (OFP8
 * Rev. 1.0) as ropecheck/fp8.h defines them. */
typedef enum ropecheck_kv_dtype_t {
  ROPECHECK_KV_F32 = 0,
  ROPECHECK_KV_F16 = 1,
  ROPECHECK_KV_BF16 = 2,
  ROPECHECK_KV_FP8_E4M3FN = 3, /* no infinity; NaN S.1111.111; largest finite 448 */
  ROPECHECK_KV_FP8_E5M2 = 4,   /* IEEE-like; largest finite 57344 */
  ROPECHECK_KV_DTYPE_COUNT = 5
} ropecheck_kv_dtype_t;

/* 1.4: one scale for the whole cache, or one per kv head. */
typedef enum ropecheck_kv_scale_kind_t {
  ROPECHECK_KV_SCALE_PER_TENSOR = 0,
  ROPECHECK_KV_SCALE_PER_HEAD = 1,
  ROPECHECK_KV_SCALE_KIND_COUNT = 2
} ropecheck_kv_scale_kind_t;

/* 1.4: how the scale is applied before the cache dtype's rounding, in fp32. */
typedef enum ropecheck_kv_scale_direction_t {
  /* code = round(x / scale): the scale dequantizes (vLLM's reshape_and_cache
   * and fused caches, quant_utils.cuh) */
  ROPECHECK_KV_SCALE_DIVIDE = 0,
  /* code = round(x * scale): the scale quantizes (FlashInfer's pos_enc.cuh,
   * TensorRT-LLM's qkv_scale_orig_quant) */
  ROPECHECK_KV_SCALE_MULTIPLY = 1
} ropecheck_kv_scale_direction_t;

/* 1.5: what the entries of a write's caches hold. A table of minor < 5, or
 * one whose kv_cache_kinds is 0, is given K_AND_V writes only. */
typedef enum ropecheck_kv_cache_kind_t {
  /* 1.4: a K cache and a V cache, an entry per kv head of head_dim channels */
  ROPECHECK_KV_CACHE_K_AND_V = 0,
  /* DeepSeek's multi-head latent attention in one cache: the call's k is
   * k_pe, one head (num_kv_heads 1) of head_dim == rotary_dim channels
   * shared by every q head, v is the latent kv_c ([num_tokens, latent_dim]
   * at v_token_stride), and an entry of k_cache is [kv_c | rotated k_pe],
   * latent_dim + rotary_dim channels (vLLM's concat_and_cache_mla and
   * concat_and_cache_mla_rope_fused: kv_lora_rank 512 + qk_rope_head_dim
   * 64). v_cache is NULL; head_stride is not read. */
  ROPECHECK_KV_CACHE_MLA_JOINT = 1,
  /* The same in two caches (FlashInfer's kpe_cache and ckv_cache): an entry
   * of k_cache holds the rotated k_pe (rotary_dim channels), an entry of
   * v_cache kv_c (latent_dim channels), at v_block_stride / v_slot_stride. */
  ROPECHECK_KV_CACHE_MLA_SPLIT = 2,
  ROPECHECK_KV_CACHE_KIND_COUNT = 3
} ropecheck_kv_cache_kind_t;

/* 1.4: a paged KV cache written by the call (with CAP_KV_CACHE_WRITE).
 * Token t goes to slot s = slot_mapping[t]: block s / block_size, entry
 * s % block_size; s < 0 is a padding token, for which nothing is written
 * (its q and k are still rotated). Element (block b, entry e, kv head h,
 * channel c) of a cache is at b * block_stride + e * slot_stride +
 * h * head_stride + c, in cache elements: [num_blocks, block_size, heads,
 * head_dim] is NHD, [num_blocks, heads, block_size, head_dim] HND. Every
 * channel of a head is written, the pass-through ones included. k's entry
 * holds the rotated k, v's the v given, each scaled and rounded as the
 * kernel's kv_policy declares; every other byte of both caches is left as
 * it was. For fp32/fp16/bf16 caches the scales are 1. */
typedef struct ropecheck_kv_write_t {
  uint32_t struct_size;     /* sizeof(ropecheck_kv_write_t) */
  uint32_t cache_dtype;     /* ropecheck_kv_dtype_t */
  int64_t num_blocks;
  int32_t block_size;
  uint32_t scale_kind;      /* ropecheck_kv_scale_kind_t */
  int64_t block_stride, slot_stride, head_stride;
  void* k_cache;
  void* v_cache;
  const void* v;            /* [num_tokens, num_kv_heads, head_dim] in the q/k storage dtype */
  int64_t v_token_stride, v_head_stride;
  const int64_t* slot_mapping; /* num_tokens entries, each < num_blocks * block_size */
  const float* k_scale;     /* 1 (PER_TENSOR) or num_kv_heads (PER_HEAD) values, finite and > 0 */
  const float* v_scale;
  /* ---- ABI 1.5: a 1.4 write ends here (ROPECHECK_KV_WRITE_SIZE_1_4) ---- */
  /* ropecheck_kv_cache_kind_t: K_AND_V (0) unless the table's kv_cache_kinds
   * grants another. MLA writes are PER_TENSOR with one scale for the whole
   * entry, kv_c and k_pe alike (vLLM's concat_and_cache_mla `scale`,
   * FlashInfer's quant_scale_kv): k_scale[0], and v_scale[0] equals it. */
  uint32_t cache_kind;
  int32_t latent_dim;       /* MLA: kv_c's channels (kv_lora_rank), >= 1; 0 for K_AND_V */
  int64_t v_block_stride, v_slot_stride; /* MLA_SPLIT: v_cache's strides; 0 otherwise */
} ropecheck_kv_write_t;

#define ROPECHECK_KV_WRITE_SIZE_1_4 offsetof(ropecheck_kv_write_t, cache_kind)

/* 1.4: what a table granting KV_CACHE_WRITE declares of its cache write
 * (docs/ERROR_MODEL.md, "E9"). The scale operation is one fp32 rounding and
 * the cache dtype's rounding is to nearest even. */
typedef struct ropecheck_kv_policy_t {
  uint32_t struct_size;     /* sizeof(ropecheck_kv_policy_t), or 0 with every field 0 */
  uint32_t cache_dtypes;    /* bit (1 << ropecheck_kv_dtype_t) the kernel writes */
  uint32_t scale_kinds;     /* bit (1 << ropecheck_kv_scale_kind_t) it reads */
  uint32_t scale_direction; /* ropecheck_kv_scale_direction_t */
  /* 1: out of range the largest finite value of the sign (CUDA's
   * __NV_SATFINITE); 0: the format's overflow (infinity; NaN for e4m3fn) */
  uint32_t saturate;
  /* 1: the k it scales is the rotated k as stored in the q/k dtype (vLLM's
   * rotary_embedding then reshape_and_cache_flash); 0: the value of its
   * rotation arithmetic before that store */
  uint32_t via_storage;
} ropecheck_kv_policy_t;

#endif /* ROPECHECK_ABI_KV_WRITE_H_ */
