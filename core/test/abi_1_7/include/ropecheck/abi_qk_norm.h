// SPDX-License-Identifier: MIT
/* Part of the kernel ABI (kernel_abi.h, which includes it; include that):
 * 1.5's qk-norm, the per-head RMSNorm of q and k that Qwen3, Gemma 3 and
 * OLMo 2 apply before the rotation and that engines fuse with it (vLLM's and
 * TensorRT-LLM's fused_qk_norm_rope): what a call hands a kernel granting
 * CAP_QK_NORM (ropecheck_qk_norm_t) and what such a table declares of its
 * arithmetic (ropecheck_norm_policy_t, docs/ERROR_MODEL.md "E10"). */
#ifndef ROPECHECK_ABI_QK_NORM_H_
#define ROPECHECK_ABI_QK_NORM_H_

#include <stdint.h>

/* 1.5: the weight's form, n_j = x_j w'_j / sqrt(mean(x^2) + eps). */
typedef enum ropecheck_norm_weight_form_t {
  ROPECHECK_NORM_WEIGHT_W = 0,          /* w' = w (Qwen3RMSNorm, OLMo 2) */
  ROPECHECK_NORM_WEIGHT_ONE_PLUS_W = 1, /* w' = 1 + w (Gemma3RMSNorm) */
  ROPECHECK_NORM_WEIGHT_FORM_COUNT = 2
} ropecheck_norm_weight_form_t;

/* 1.5: where the normalised value is rounded to the q/k storage dtype S
 * before the rotation reads it. */
typedef enum ropecheck_norm_intermediate_t {
  /* every step in fp32 and the rotation fed fp32 (vLLM's and TensorRT-LLM's
   * fused_qk_norm_rope: `x *= rms_rcp * weight`) */
  ROPECHECK_NORM_KEEP_F32 = 0,
  /* x * rsqrt in fp32 rounded to S, then times the weight in S
   * (transformers' Qwen3RMSNorm: `self.weight * hidden_states.to(input_dtype)`) */
  ROPECHECK_NORM_ROUND_BEFORE_WEIGHT = 1,
  /* every step in fp32, the result rounded to S (transformers'
   * Gemma3RMSNorm: `output.type_as(x)`) */
  ROPECHECK_NORM_ROUND_AFTER_WEIGHT = 2,
  ROPECHECK_NORM_INTERMEDIATE_COUNT = 3
} ropecheck_norm_intermediate_t;

/* 1.5: the norm of a call (non-NULL only for a table granting CAP_QK_NORM,
 * and only where the gate asks for it: every other call has none and is a
 * plain rotation). Every head of q, and of k, is normalised over all its
 * head_dim channels (the rotary and the pass-through ones: the models norm
 * the head before splitting off the rotary part); the rotary channels of the
 * result are rotated, its pass-through channels stored as they are; the
 * statistic's mean divides by head_dim. With a KV-cache write in the same
 * call, the cache holds the normalised and rotated k. */
typedef struct ropecheck_qk_norm_t {
  uint32_t struct_size;  /* sizeof(ropecheck_qk_norm_t) */
  uint32_t weight_form;  /* ropecheck_norm_weight_form_t, one the table declares */
  float eps;             /* finite and > 0, added in fp32 */
  uint32_t reserved;     /* 0 */
  const void* q_weight;  /* head_dim values in the q/k storage dtype (the model's parameter) */
  const void* k_weight;  /* head_dim values; NULL when the call has no k */
} ropecheck_qk_norm_t;

/* 1.5: what a table granting CAP_QK_NORM declares of its norm. */
typedef struct ropecheck_norm_policy_t {
  uint32_t struct_size;   /* sizeof(ropecheck_norm_policy_t), or 0 with every field 0 */
  uint32_t weight_forms;  /* bit (1 << ropecheck_norm_weight_form_t) it applies, non-empty */
  uint32_t intermediate;  /* ropecheck_norm_intermediate_t */
  uint32_t reserved;      /* 0 */
  /* Its fp32 reciprocal square root, in ulps of fp32 at the result: 1 for
   * 1.0f / sqrtf (two correct roundings), 2 for CUDA's rsqrtf (CUDA C++
   * Programming Guide, mathematical functions). 0 means 1; else in [0.5, 16]. */
  double rsqrt_max_ulp;
} ropecheck_norm_policy_t;

#endif /* ROPECHECK_ABI_QK_NORM_H_ */
