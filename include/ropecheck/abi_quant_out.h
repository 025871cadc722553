// SPDX-License-Identifier: MIT
/* Part of the kernel ABI (kernel_abi.h, which includes it; include that):
 * 1.8's quantized rotated output, what a call hands a kernel granting
 * CAP_QUANTIZED_OUTPUT (ropecheck_quant_out_t) and what such a table
 * declares of it (ropecheck_quant_policy_t). ropecheck/quant_out.h reads it.
 *
 * The form is FlashInfer's rope_quantize and
 * rope_quantize_fp8_append_paged_kv_cache (flashinfer-python 0.7.2.post1,
 * include/flashinfer/pos_enc.cuh): the rotation in fp32, then
 * `q_rope_vec[i] = q_rope_vec[i] * quant_scale_q` (line 996; q_nope's
 * channels alike, line 1116) and a cast to fp8 with __NV_SATFINITE
 * (vec_dtypes.cuh lines 132 and 148): the scale multiplies, out of range
 * saturates. A kernel declares the other direction (x / scale) or no
 * saturation in its policy; the host judges what it declares. */
#ifndef ROPECHECK_ABI_QUANT_OUT_H_
#define ROPECHECK_ABI_QUANT_OUT_H_

#include <stddef.h>
#include <stdint.h>

/* 1.8: what a quantized call's k_out holds (ropecheck_quant_policy_t's
 * k_output). */
typedef enum ropecheck_quant_k_t {
  /* the rotated k in the storage dtype, as on a call without quant_out */
  ROPECHECK_QUANT_K_STORAGE = 0,
  /* codes, as q_out's, scaled by quant_out's k_scale (FlashInfer's
   * rope_quantize: k_rope_out, k_nope_out) */
  ROPECHECK_QUANT_K_QUANTIZED = 1,
  /* not written: k goes only into the call's KV-cache write (FlashInfer's
   * rope_quantize_fp8_append_paged_kv_cache returns q alone); a table
   * declaring it grants KV_CACHE_WRITE and is handed quant_out only on
   * calls carrying a kv_write */
  ROPECHECK_QUANT_K_NOT_RETURNED = 2,
  ROPECHECK_QUANT_K_COUNT = 3
} ropecheck_quant_k_t;

/* 1.8: a quantized rotated output (with CAP_QUANTIZED_OUTPUT). q_out (and
 * k_out when the table's k_output is QUANTIZED) holds one code of `dtype`
 * per element, one byte, at the call's strides counted in codes: element
 * (t, h, c) of q at byte q_token_stride * t + q_head_stride * h + c of
 * q_out (q_seq_stride as in kernel_abi.h's Conventions). The code is the
 * rotated value (pass-through channels: the input) scaled in fp32 as the
 * table's quant_policy declares, then rounded to nearest even (out of
 * range as it declares). Out of place only: q_out is not q_in. */
typedef struct ropecheck_quant_out_t {
  uint32_t struct_size; /* sizeof(ropecheck_quant_out_t) */
  uint32_t dtype;       /* ropecheck_kv_dtype_t: FP8_E4M3FN or FP8_E5M2 */
  float q_scale;        /* finite, > 0 (FlashInfer's quant_scale_q) */
  float k_scale;        /* finite, > 0 with k_output QUANTIZED; else 1 */
} ropecheck_quant_out_t;

/* 1.8: what a table granting QUANTIZED_OUTPUT declares of it. struct_size 0
 * (every field 0) without the grant. */
typedef struct ropecheck_quant_policy_t {
  uint32_t struct_size;     /* sizeof(ropecheck_quant_policy_t) */
  uint32_t dtypes;          /* bit (1 << ropecheck_kv_dtype_t): FP8_E4M3FN, FP8_E5M2 */
  uint32_t scale_direction; /* ropecheck_kv_scale_direction_t: MULTIPLY is FlashInfer's */
  uint32_t saturate;        /* 1: __NV_SATFINITE; 0: the format's overflow (kv_policy's meaning) */
  uint32_t k_output;        /* ropecheck_quant_k_t */
  uint32_t reserved;        /* 0 */
} ropecheck_quant_policy_t;

#endif /* ROPECHECK_ABI_QUANT_OUT_H_ */
