// SPDX-License-Identifier: MIT
/* ropecheck kernel ABI: the one interface every implementation under test
 * implements, built-in or loaded from a shared library.
 *
 * C only: no C++ types cross it, so a kernel written in C, C++, Rust or CUDA
 * can be gated by the same suite. Every struct that may grow starts with its
 * own size so a newer ropecheck can read an older kernel's tables.
 *
 * Versions (docs/KERNEL_ABI.md). ROPECHECK_ABI_VERSION is the major version
 * every plugin is built against and the host asks for; it changes only when
 * an old table can no longer be read. ROPECHECK_ABI_VERSION_MINOR counts
 * compatible growth, which only ever:
 *   - appends members at the END of ropecheck_impl_t (and of the structs the
 *     host fills, ropecheck_apply_params_t): the table's struct_size says which
 *     members an older plugin has, and the host reads nothing past it;
 *   - adds enum values and policy fields whose 0 keeps the older meaning;
 *   - adds caps.flags bits that restrict what a kernel supports, 0 meaning
 *     "no restriction".
 * A host refuses a table whose bytes past the members it knows are not zero
 * (a newer plugin using fields this host cannot honour), the convention of
 * Linux's extensible structs (copy_struct_from_user).
 *   1.0  the first release.
 *   1.1  ropecheck_impl_t gains abi_minor and policy_ext (rotation form,
 *        libm ulps, the range and growth of a fast sin/cos, fp32 positions);
 *        angle mode F32_RUNNING_PRODUCT; math/cache dtype bf16, f16 and
 *        OF_STORAGE; capability flags YARN_TRUNCATED_ONLY,
 *        NO_EXPLICIT_ATTENTION_FACTOR, NO_RUNTIME_SEQ_LEN.
 *   1.2  ropecheck_apply_params_t gains seq_len, q_seq_stride, k_seq_stride
 *        (batched sequences: head-major [batch, heads, seq, dim] and any
 *        layout with a stride between sequences) and num_threads; capability
 *        flags SEQ_STRIDES and BATCH_INVARIANT, the first flags that GRANT
 *        rather than restrict: a host passes seq_len > 0 only to a table of
 *        minor >= 2 that sets SEQ_STRIDES, and a table of minor < 2 may set
 *        neither.
 *   1.3  multi-axis positions (M-RoPE, axial vision RoPE):
 *        ropecheck_apply_params_t gains num_axes, axis_assignment,
 *        axis_frequencies, position_axis_stride, axis_sections and
 *        pair_axis; capability grants AXES_SECTIONS, AXES_INTERLEAVED,
 *        AXES_TABLE and AXIS_FREQUENCIES. A host passes num_axes > 0 only to
 *        a table of minor >= 3 granting the assignment (and, for per-axis
 *        frequencies, AXIS_FREQUENCIES); a table of minor < 3 may set none.
 *   1.4  a fused KV-cache write: ropecheck_apply_params_t gains kv_write
 *        (ropecheck_kv_write_t: a paged K and V cache, the slot mapping, the
 *        cache dtype fp32/fp16/bf16/fp8 e4m3fn/fp8 e5m2 and the scales);
 *        ropecheck_impl_t gains kv_policy (the cache dtypes, scale forms
 *        and arithmetic of the write); capability grant KV_CACHE_WRITE. A
 *        host passes kv_write != NULL only to a table of minor >= 4 granting
 *        it; a table of minor < 4 may set neither.
 *   1.5  fused parts beyond the cache write: ropecheck_apply_params_t gains
 *        qk_norm (ropecheck_qk_norm_t: a per-head RMSNorm of q and k before
 *        the rotation, its weights, eps and weight form) and
 *        ropecheck_kv_write_t gains cache_kind, latent_dim and v's strides
 *        (DeepSeek MLA's latent cache, [kv_c | k_pe] in one cache or split
 *        in two); ropecheck_impl_t gains kv_cache_kinds (the cache kinds its
 *        write makes), norm_policy (the norm's arithmetic) and max_position
 *        (the positions it serves); capability grant QK_NORM. A host passes
 *        qk_norm != NULL, a write of another kind than K_AND_V, or relies on
 *        max_position only for a table of minor >= 5 declaring them.
 *   1.6  a cos/sin cache passed in by the caller: ropecheck_impl_t gains
 *        cos_sin_cache_dtypes (the cache dtypes the kernel reads: fp32,
 *        fp16, bf16, or the call's storage dtype); capability grant
 *        CALLER_COS_SIN_CACHE. The host hands such a table, in the params'
 *        cos_sin_cache (1.0's fields), a cache it built from the exact
 *        angles, rounded once to one of those dtypes; only a table of
 *        minor >= 6 may grant it. The params do not grow.
 *   1.7  arithmetic real frameworks use: ropecheck_impl_t gains
 *        policy_ext2 (the frequency form: POWER, EXP_LOG, TABLE, with
 *        exp's growth; subnormals KEPT or FLUSHED); capability restriction
 *        NO_YARN_MSCALE (DeepSeek's mscale / mscale_all_dim not taken) and
 *        grant MAY_DECLINE (apply may return UNSUPPORTED for a case inside
 *        its capabilities, naming why: the case is skipped and counted by
 *        reason). Only a table of minor >= 7 may set them. The params do
 *        not grow.
 *
 * Conventions
 *   - q is [tokens, q_heads, head_dim], k is [tokens, kv_heads, head_dim];
 *     strides are in elements, the innermost (channel) stride is 1. Element
 *     (t, h, c) of q is at q_token_stride * t + q_head_stride * h + c, or
 *     (1.2, seq_len > 0) at q_seq_stride * (t / seq_len) +
 *     q_token_stride * (t % seq_len) + q_head_stride * h + c; k alike.
 *   - pair i of a head is (x[2i], x[2i+1]) for INTERLEAVED and
 *     (x[i], x[i + rotary_dim/2]) for HALF_SPLIT; channels [rotary_dim,
 *     head_dim) pass through unchanged.
 *   - (1.3, num_axes > 0) multi-axis: positions holds num_axes rows of
 *     num_tokens ids, id (a, t) at positions[a * position_axis_stride + t];
 *     pair i rotates with the position of its axis (ropecheck/axes.h).
 *   - FORWARD rotates pair i at position p by angle p*w_i and scales by the
 *     attention factor m; INVERSE applies the transpose, i.e. angle -p*w_i with
 *     the same m (what the backward pass applies; the exact inverse when m=1).
 */
#ifndef ROPECHECK_KERNEL_ABI_H_
#define ROPECHECK_KERNEL_ABI_H_

#include <stddef.h>
#include <stdint.h>

#define ROPECHECK_ABI_VERSION 1u
#define ROPECHECK_ABI_VERSION_MINOR 7u

/* The parts, one job each: a call's vocabulary and frequency spec, the
 * precision policy (1.7's frequency form and subnormals among it), the
 * capability flags and multi-axis assignments, the 1.4 KV-cache write (and
 * 1.5's MLA caches), 1.5's qk-norm (1.6's caller cos/sin cache is a caps
 * grant and a table field). This file: the
 * call, the table, the entry point. */
#include "ropecheck/abi_types.h"
#include "ropecheck/abi_policy.h"
#include "ropecheck/abi_caps.h"
#include "ropecheck/abi_kv_write.h"
#include "ropecheck/abi_qk_norm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ropecheck_caps_t {
  uint32_t struct_size;
  uint32_t layouts;  /* bit (1 << ropecheck_layout_t) */
  uint32_t dtypes;   /* bit (1 << ropecheck_dtype_t) for q/k storage */
  uint32_t schemes;  /* bit (1 << ropecheck_scheme_t) */
  uint32_t max_head_dim;
  uint32_t flags;    /* ROPECHECK_CAP_* */
} ropecheck_caps_t;

typedef struct ropecheck_apply_params_t {
  uint32_t struct_size;
  uint32_t dtype;       /* storage dtype of q and k */
  uint32_t layout;
  uint32_t direction;
  int64_t num_tokens;
  int32_t num_q_heads;
  int32_t num_kv_heads; /* 0: no k */
  int32_t head_dim;
  int32_t rotary_dim;   /* even, <= head_dim */
  const void* q_in;     /* in place when q_out == q_in */
  void* q_out;
  int64_t q_token_stride, q_head_stride;  /* elements, for q_in and q_out */
  const void* k_in;
  void* k_out;
  int64_t k_token_stride, k_head_stride;
  const void* positions; /* num_tokens ids */
  uint32_t position_type; /* ropecheck_index_type_t */
  const ropecheck_freq_spec_t* freq;
  /* For ROPECHECK_CAP_COS_SIN_CACHE (the kernel's own, from build_cache) and
   * 1.6's CALLER_COS_SIN_CACHE (the caller's): row p holds m*cos(p w_i) for
   * i < rotary_dim/2 then m*sin(p w_i), in cache_dtype (vLLM/FlashInfer
   * layout, attention factor folded in as HF does). An input: never written. */
  const void* cos_sin_cache;
  uint32_t cache_dtype;
  int64_t cache_max_position;  /* rows in the cache; ids must be in [0, this) */
  /* ---- ABI 1.2: a 1.1 host's params end here (struct_size
   * ROPECHECK_APPLY_PARAMS_SIZE_1_1); read these only when struct_size covers
   * them. ---- */
  /* Tokens per sequence: 0 means one sequence of num_tokens tokens (every
   * 1.1 call). > 0 (only for a table declaring CAP_SEQ_STRIDES): num_tokens is
   * a multiple of it and token t is index t % seq_len of sequence
   * t / seq_len, which starts q_seq_stride (k_seq_stride) elements after the
   * previous one. Decode is seq_len 1: one token per sequence. */
  int64_t seq_len;
  int64_t q_seq_stride, k_seq_stride;
  /* Threads the kernel may use for this call; 0: its own choice. The result
   * must be bitwise the same for every value (the gate checks it). */
  int32_t num_threads;
  int32_t reserved1;   /* 0 */
  /* ---- ABI 1.3: a 1.2 host's params end here (ROPECHECK_APPLY_PARAMS_SIZE_1_2). ---- */
  /* Position axes: 0 means one position per token (every call before 1.3).
   * 1..ROPECHECK_MAX_AXES (only for a table granting the assignment): the
   * positions are num_axes rows, row a starting position_axis_stride ids
   * after row a-1 (>= num_tokens; the ids between are not to be read). */
  int32_t num_axes;
  uint32_t axis_assignment;  /* ropecheck_axis_assignment_t */
  uint32_t axis_frequencies; /* ropecheck_axis_frequencies_t */
  uint32_t reserved2;        /* 0 */
  int64_t position_axis_stride;
  /* SECTIONS and INTERLEAVED: num_axes pair counts, each >= 0, summing to
   * rotary_dim/2. */
  const int32_t* axis_sections;
  /* TABLE: rotary_dim/2 axis indices, each in [0, num_axes). */
  const int32_t* pair_axis;
  /* ---- ABI 1.4: a 1.3 host's params end here (ROPECHECK_APPLY_PARAMS_SIZE_1_3). ---- */
  /* NULL: no cache write (every call before 1.4, and every call to a table
   * not granting KV_CACHE_WRITE). */
  const ropecheck_kv_write_t* kv_write;
  /* ---- ABI 1.5: a 1.4 host's params end here (ROPECHECK_APPLY_PARAMS_SIZE_1_4). ---- */
  /* NULL: no norm, a plain rotation (every call before 1.5, every call to a
   * table not granting QK_NORM, and every call the gate makes without one). */
  const ropecheck_qk_norm_t* qk_norm;
} ropecheck_apply_params_t;

/* struct_size of the params of each minor version. */
#define ROPECHECK_APPLY_PARAMS_SIZE_1_1 offsetof(ropecheck_apply_params_t, seq_len)
#define ROPECHECK_APPLY_PARAMS_SIZE_1_2 offsetof(ropecheck_apply_params_t, num_axes)
#define ROPECHECK_APPLY_PARAMS_SIZE_1_3 offsetof(ropecheck_apply_params_t, kv_write)
#define ROPECHECK_APPLY_PARAMS_SIZE_1_4 offsetof(ropecheck_apply_params_t, qk_norm)
#define ROPECHECK_APPLY_PARAMS_SIZE_1_5 sizeof(ropecheck_apply_params_t)
/* 1.6 and 1.7 append nothing to the params. */
#define ROPECHECK_APPLY_PARAMS_SIZE_1_6 ROPECHECK_APPLY_PARAMS_SIZE_1_5
#define ROPECHECK_APPLY_PARAMS_SIZE_1_7 ROPECHECK_APPLY_PARAMS_SIZE_1_5

typedef struct ropecheck_impl_t {
  uint32_t struct_size;
  uint32_t abi_version;  /* ROPECHECK_ABI_VERSION the table was built against */
  const char* name;      /* unique, [a-z0-9_]+ */
  const char* description;
  ropecheck_caps_t caps;
  ropecheck_policy_t policy;
  void* ctx;             /* passed back to every call */
  /* Rotates q and k. On failure returns a status and writes a NUL-terminated
   * message into err (err_size bytes, may be 0). Must never write outside the
   * declared outputs. */
  ropecheck_status_t (*apply)(void* ctx, const ropecheck_apply_params_t* params,
                              char* err, size_t err_size);
  /* Optional (cache implementations): fills the [max_position, rotary_dim]
   * cos|sin cache with the implementation's own frequency code. */
  ropecheck_status_t (*build_cache)(void* ctx, const ropecheck_freq_spec_t* freq,
                                    int32_t rotary_dim, int64_t max_position,
                                    uint32_t cache_dtype, void* cache,
                                    char* err, size_t err_size);
  /* Optional: the code path chosen at run time (e.g. the SIMD target). */
  const char* (*target)(void* ctx);
  /* ---- ABI 1.1: a 1.0 table ends here (struct_size ROPECHECK_IMPL_SIZE_1_0) ---- */
  uint32_t abi_minor;    /* ROPECHECK_ABI_VERSION_MINOR the table was built against */
  uint32_t reserved0;    /* must be 0 */
  ropecheck_policy_ext_t policy_ext;
  /* ---- ABI 1.4: a 1.1-1.3 table ends here (struct_size ROPECHECK_IMPL_SIZE_1_1) ---- */
  ropecheck_kv_policy_t kv_policy; /* read with CAP_KV_CACHE_WRITE */
  /* ---- ABI 1.5: a 1.4 table ends here (struct_size ROPECHECK_IMPL_SIZE_1_4) ---- */
  /* With CAP_KV_CACHE_WRITE: bit (1 << ropecheck_kv_cache_kind_t) of the
   * writes it makes; 0 means K_AND_V alone (what a 1.4 table makes). */
  uint32_t kv_cache_kinds;
  uint32_t reserved1;    /* must be 0 */
  ropecheck_norm_policy_t norm_policy; /* read with CAP_QK_NORM */
  /* Position ids it serves: |id| < max_position (a cos/sin cache of that
   * many rows built at load, as vLLM builds one of max_position_embeddings
   * rows). 0: no bound. The gate gives it no case past the bound and counts
   * the skips. */
  int64_t max_position;
  /* ---- ABI 1.6: a 1.5 table ends here (struct_size ROPECHECK_IMPL_SIZE_1_5) ---- */
  /* With CAP_CALLER_COS_SIN_CACHE: bit (1 << ropecheck_dtype_t) of the
   * cache dtypes apply reads (F32, F16, BF16), and
   * ROPECHECK_COS_SIN_CACHE_OF_STORAGE for a cache in the call's q/k dtype;
   * the host draws each case's among them. 0 without the grant. */
  uint32_t cos_sin_cache_dtypes;
  uint32_t reserved2;    /* must be 0 */
  /* ---- ABI 1.7: a 1.6 table ends here (struct_size ROPECHECK_IMPL_SIZE_1_6) ---- */
  /* The frequency form and subnormal handling (abi_policy.h); struct_size 0
   * (every field 0): POWER, subnormals KEPT, what a 1.6 table means. */
  ropecheck_policy_ext2_t policy_ext2;
  /* Later minor versions append here. */
} ropecheck_impl_t;

/* struct_size of a table of each minor version: the host accepts exactly
 * these sizes (and larger ones whose unknown tail is zero). */
#define ROPECHECK_IMPL_SIZE_1_0 offsetof(ropecheck_impl_t, abi_minor)
#define ROPECHECK_IMPL_SIZE_1_1 (offsetof(ropecheck_impl_t, policy_ext) + sizeof(ropecheck_policy_ext_t))
/* 1.2 appends nothing to the table: its size is 1.1's, abi_minor says 2. */
#define ROPECHECK_IMPL_SIZE_1_2 ROPECHECK_IMPL_SIZE_1_1
/* 1.3 appends nothing to the table either. */
#define ROPECHECK_IMPL_SIZE_1_3 ROPECHECK_IMPL_SIZE_1_1
#define ROPECHECK_IMPL_SIZE_1_4 (offsetof(ropecheck_impl_t, kv_policy) + sizeof(ropecheck_kv_policy_t))
#define ROPECHECK_IMPL_SIZE_1_5 (offsetof(ropecheck_impl_t, max_position) + sizeof(int64_t))
#define ROPECHECK_IMPL_SIZE_1_6 (offsetof(ropecheck_impl_t, reserved2) + sizeof(uint32_t))
#define ROPECHECK_IMPL_SIZE_1_7 (offsetof(ropecheck_impl_t, policy_ext2) + sizeof(ropecheck_policy_ext2_t))

/* Entry point a plugin shared library exports. Returns its implementations
 * (count in *count) or NULL if it cannot serve host_abi_version. */
typedef const ropecheck_impl_t* const* (*ropecheck_get_impls_fn)(uint32_t host_abi_version,
                                                                 uint32_t* count);
#define ROPECHECK_PLUGIN_ENTRY "ropecheck_get_impls"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ROPECHECK_KERNEL_ABI_H_ */
