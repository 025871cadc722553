// SPDX-License-Identifier: MIT
/* Part of the kernel ABI (kernel_abi.h, which includes it; include that):
 * the capability flags of a table, restricting (1.1) and granting (1.2 on),
 * and the multi-axis assignments the 1.3 grants name. */
#ifndef ROPECHECK_ABI_CAPS_H_
#define ROPECHECK_ABI_CAPS_H_

#include <stdint.h>

#define ROPECHECK_CAP_IN_PLACE (1u << 0)
#define ROPECHECK_CAP_OUT_OF_PLACE (1u << 1)
#define ROPECHECK_CAP_COS_SIN_CACHE (1u << 2) /* apply reads a [max_pos, rotary_dim] cache */
#define ROPECHECK_CAP_INVERSE (1u << 3)
#define ROPECHECK_CAP_PARTIAL_ROTARY (1u << 4)
#define ROPECHECK_CAP_POS_INT32 (1u << 5)
#define ROPECHECK_CAP_POS_INT64 (1u << 6)
#define ROPECHECK_CAP_NEGATIVE_POSITIONS (1u << 7)
/* 1.1 restrictions (0: no restriction); the gate skips the cases outside
 * them and says why. */
#define ROPECHECK_CAP_YARN_TRUNCATED_ONLY (1u << 8) /* YaRN only with truncate = 1 (llama.cpp, vLLM) */
#define ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR (1u << 9) /* no explicit attention_factor */
/* freq.seq_len is not read: dynamic NTK and LongRoPE only while seq_len <=
 * original_max_position (the factors a kernel without a runtime sequence
 * length applies: llama.cpp picks LongRoPE's list once, at load) */
#define ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN (1u << 10)
/* 1.2, a grant (0: the kernel never sees seq_len > 0): apply reads seq_len and
 * the per-sequence strides q_seq_stride / k_seq_stride. Without it the gate
 * gives the kernel batched cases only where the sequences lie back to back
 * (one run of tokens) and says why it skips the others. */
#define ROPECHECK_CAP_SEQ_STRIDES (1u << 11)
/* 1.2, a grant: a token's output bits depend neither on the other tokens of
 * the call (batch size, order, sequences) nor on num_threads. The gate holds
 * a kernel declaring it to that (IsBatchInvariant); eager framework code
 * often is not (its vectorised paths change with tensor sizes), and need
 * not declare it. */
#define ROPECHECK_CAP_BATCH_INVARIANT (1u << 12)
/* 1.3 grants (0: the kernel never sees num_axes > 0): apply reads
 * multi-axis positions with the pair-to-axis assignment of the grant
 * (ropecheck_axis_assignment_t); AXIS_FREQUENCIES adds per-axis frequencies
 * (ROPECHECK_AXIS_FREQ_PER_AXIS) to every assignment the table grants. A
 * cos/sin cache holds the frequencies of rotary_dim, so a cache kernel
 * cannot declare AXIS_FREQUENCIES. */
#define ROPECHECK_CAP_AXES_SECTIONS (1u << 13)
#define ROPECHECK_CAP_AXES_INTERLEAVED (1u << 14)
#define ROPECHECK_CAP_AXES_TABLE (1u << 15)
#define ROPECHECK_CAP_AXIS_FREQUENCIES (1u << 16)

/* 1.4, a grant (0: the kernel never sees kv_write != NULL): apply also
 * writes the rotated k and the v of every token into a paged KV cache
 * (ropecheck_kv_write_t), in a cache dtype and with the arithmetic its
 * kv_policy declares. q and k are still rotated into q_out and k_out. */
#define ROPECHECK_CAP_KV_CACHE_WRITE (1u << 17)

/* 1.5, a grant (0: the kernel never sees qk_norm != NULL): where the gate
 * asks for it, apply normalises every head of q and k by RMSNorm before
 * rotating (ropecheck_qk_norm_t), with the arithmetic its norm_policy
 * declares. Calls without a norm still rotate plainly. */
#define ROPECHECK_CAP_QK_NORM (1u << 18)

/* 1.6, a grant (0: the kernel never sees a cache it did not build): apply
 * reads the cos/sin cache the caller passes in (params' cos_sin_cache,
 * cache_dtype, cache_max_position), as vLLM's rotary_embedding and
 * FlashInfer's apply_rope_with_cos_sin_cache take theirs: row p holds
 * m cos(p w_i) for i < rotary_dim/2, then m sin(p w_i), each the exact value
 * rounded once to cache_dtype, a dtype among the table's
 * cos_sin_cache_dtypes. The kernel reads it and never writes it; it has no
 * build_cache to call. Excludes COS_SIN_CACHE (the kernel's own cache),
 * NEGATIVE_POSITIONS and AXIS_FREQUENCIES, as a cache of its own does. */
#define ROPECHECK_CAP_CALLER_COS_SIN_CACHE (1u << 19)

/* 1.7, a restriction (0: no restriction): YaRN's DeepSeek parameters
 * mscale / mscale_all_dim are not taken (the attention factor is YaRN's
 * 0.1 ln s + 1 or an explicit one, never g(s, mscale) / g(s, mscale_all_dim):
 * llama.cpp's loader, MLX-LM's YarnRoPE before its DeepSeek variant); the
 * gate skips YaRN cases that set either and says why. */
#define ROPECHECK_CAP_NO_YARN_MSCALE (1u << 20)

/* 1.7, a grant (0: every status but OK on a case inside the capabilities
 * fails): apply may decline a case it supports in general but not in
 * this instance (a framework that takes positions only as int32 offsets, a
 * parameter it has no argument for) by returning ROPECHECK_UNSUPPORTED with
 * a reason in err. The gate skips that case for every property that called
 * it, counts the skips by reason, and a kernel declining every case fails
 * the verdict floor (--min-judged): a kernel cannot decline its way to a
 * pass. The reason is a category ("position beyond int32"), not a case's
 * numbers, so the skip table counts like cases together. */
#define ROPECHECK_CAP_MAY_DECLINE (1u << 21)

/* 1.8, a grant: apply takes a quant_out (abi_quant_out.h) and writes q (and
 * k, as quant_policy.k_output says) as fp8 codes scaled as quant_policy
 * declares. The host hands one only on the calls of its quantized-output
 * property; every other call carries none. */
#define ROPECHECK_CAP_QUANTIZED_OUTPUT (1u << 22)

/* 1.6: in ropecheck_impl_t's cos_sin_cache_dtypes beside the bits
 * (1 << ropecheck_dtype_t): a cache in the call's q/k storage dtype,
 * whatever that is (vLLM casts its cache to query.dtype). */
#define ROPECHECK_COS_SIN_CACHE_OF_STORAGE (1u << 31)

/* 1.3: the most position axes a call has (Qwen2-VL and video diffusion
 * transformers use 3). */
#define ROPECHECK_MAX_AXES 8

/* 1.3: which axis each pair rotates with (ropecheck/axes.h has the one
 * definition of each). */
typedef enum ropecheck_axis_assignment_t {
  /* consecutive blocks: the first axis_sections[0] pairs on axis 0, the next
   * axis_sections[1] on axis 1, ... (Qwen2-VL mrope_section, axial 2D/3D) */
  ROPECHECK_AXES_SECTIONS = 0,
  /* round robin (Qwen3-VL interleaved M-RoPE): pair i is on axis
   * r = i % num_axes when r > 0 and i < num_axes * axis_sections[r], else on
   * axis 0; axis_sections[a] is then the number of pairs of axis a */
  ROPECHECK_AXES_INTERLEAVED = 1,
  /* pair_axis[i] for every pair */
  ROPECHECK_AXES_TABLE = 2,
  ROPECHECK_AXES_COUNT = 3
} ropecheck_axis_assignment_t;

/* 1.3: which frequency each pair of a multi-axis call uses. */
typedef enum ropecheck_axis_frequencies_t {
  /* pair i uses w_i of the scheme over rotary_dim, whatever its axis (M-RoPE) */
  ROPECHECK_AXIS_FREQ_SHARED = 0,
  /* the j-th pair of an axis that has n pairs uses the scheme's w_j over a
   * rotary dim of 2n: every axis restarts at w_0 = 1 (axial vision RoPE of
   * Qwen2-VL's encoder, FLUX's axes_dim); default and linear schemes only */
  ROPECHECK_AXIS_FREQ_PER_AXIS = 1
} ropecheck_axis_frequencies_t;

#endif /* ROPECHECK_ABI_CAPS_H_ */
