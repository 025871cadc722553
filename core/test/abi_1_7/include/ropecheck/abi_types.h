// SPDX-License-Identifier: MIT
/* Part of the kernel ABI (kernel_abi.h, which includes it; include that):
 * the vocabulary of a call, its status, storage dtypes, layouts, directions,
 * position types and frequency schemes, and the frequency spec a call
 * carries. */
#ifndef ROPECHECK_ABI_TYPES_H_
#define ROPECHECK_ABI_TYPES_H_

#include <stdint.h>

typedef enum ropecheck_status_t {
  ROPECHECK_OK = 0,
  ROPECHECK_UNSUPPORTED = 1,       /* valid request outside the declared capabilities */
  ROPECHECK_INVALID_ARGUMENT = 2,  /* malformed request (null pointer, bad dims...) */
  ROPECHECK_POSITION_OUT_OF_RANGE = 3, /* a position id outside the cos/sin cache */
  ROPECHECK_INTERNAL_ERROR = 4
} ropecheck_status_t;

typedef enum ropecheck_dtype_t {
  ROPECHECK_DTYPE_F32 = 0,
  ROPECHECK_DTYPE_F16 = 1,
  ROPECHECK_DTYPE_BF16 = 2,
  ROPECHECK_DTYPE_F64 = 3,
  ROPECHECK_DTYPE_COUNT = 4
} ropecheck_dtype_t;

/* Policy-only pseudo dtype (1.1) for math_dtype and cache_dtype: "the
 * storage dtype of the q/k being rotated", whatever the case's is (Hugging
 * Face's eager code casts cos/sin to q.dtype and rounds every tensor op in it). */
#define ROPECHECK_DTYPE_OF_STORAGE 255u

typedef enum ropecheck_layout_t {
  ROPECHECK_LAYOUT_INTERLEAVED = 0, /* GPT-J, Meta complex, ggml NORMAL */
  ROPECHECK_LAYOUT_HALF_SPLIT = 1,  /* NeoX, HF rotate_half, ggml NEOX */
  ROPECHECK_LAYOUT_COUNT = 2
} ropecheck_layout_t;

typedef enum ropecheck_direction_t {
  ROPECHECK_DIRECTION_FORWARD = 0,
  ROPECHECK_DIRECTION_INVERSE = 1
} ropecheck_direction_t;

typedef enum ropecheck_index_type_t {
  ROPECHECK_INDEX_INT32 = 0,
  ROPECHECK_INDEX_INT64 = 1
} ropecheck_index_type_t;

/* Frequency schemes, with the semantics of HF transformers
 * modeling_rope_utils.py (see docs/FREQUENCY_SCHEMES.md). */
typedef enum ropecheck_scheme_t {
  ROPECHECK_SCHEME_DEFAULT = 0,
  ROPECHECK_SCHEME_LINEAR = 1,
  ROPECHECK_SCHEME_NTK_AWARE = 2,
  ROPECHECK_SCHEME_DYNAMIC_NTK = 3,
  ROPECHECK_SCHEME_YARN = 4,
  ROPECHECK_SCHEME_LLAMA3 = 5,
  ROPECHECK_SCHEME_LONGROPE = 6,
  ROPECHECK_SCHEME_EXPLICIT = 7, /* caller-given inverse frequency per pair */
  ROPECHECK_SCHEME_COUNT = 8
} ropecheck_scheme_t;

/* Parameters of a frequency scheme. Fields a scheme does not use are ignored.
 * Arrays are borrowed for the duration of the call. */
typedef struct ropecheck_freq_spec_t {
  uint32_t scheme;                 /* ropecheck_scheme_t */
  double base;                     /* rope_theta, > 1 */
  double factor;                   /* scaling factor s (linear, NTK, dynamic, YaRN, Llama 3.1, LongRoPE) */
  int64_t original_max_position;   /* L: dynamic NTK max_position_embeddings; YaRN/Llama3/LongRoPE original */
  int64_t seq_len;                 /* dynamic NTK and LongRoPE: current sequence length */
  double beta_fast;                /* YaRN, default 32 */
  double beta_slow;                /* YaRN, default 1 */
  int32_t truncate;                /* YaRN: floor/ceil the correction range, default 1 */
  int32_t has_attention_factor;    /* 1: use attention_factor instead of the derived one */
  double attention_factor;
  double mscale;                   /* YaRN (DeepSeek): 0 means absent */
  double mscale_all_dim;           /* YaRN (DeepSeek): 0 means absent */
  double low_freq_factor;          /* Llama 3.1 */
  double high_freq_factor;         /* Llama 3.1 */
  const double* short_factor;      /* LongRoPE, rotary_dim/2 entries */
  const double* long_factor;       /* LongRoPE, rotary_dim/2 entries */
  const double* inv_freq;          /* EXPLICIT, rotary_dim/2 entries */
} ropecheck_freq_spec_t;

#endif /* ROPECHECK_ABI_TYPES_H_ */
