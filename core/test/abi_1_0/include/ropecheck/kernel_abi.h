/* ropecheck kernel ABI: the one interface every implementation under test
 * implements, built-in or loaded from a shared library.
 *
 * C only: no C++ types cross it, so a kernel written in C, C++, Rust or CUDA
 * can be gated by the same suite. Every struct that may grow starts with its
 * own size so a newer ropecheck can read an older kernel's tables.
 *
 * Conventions
 *   - q is [tokens, q_heads, head_dim], k is [tokens, kv_heads, head_dim];
 *     strides are in elements, the innermost (channel) stride is 1.
 *   - pair i of a head is (x[2i], x[2i+1]) for INTERLEAVED and
 *     (x[i], x[i + rotary_dim/2]) for HALF_SPLIT; channels [rotary_dim,
 *     head_dim) pass through unchanged.
 *   - FORWARD rotates pair i at position p by angle p*w_i and scales by the
 *     attention factor m; INVERSE applies the transpose, i.e. angle -p*w_i with
 *     the same m (what the backward pass applies; the exact inverse when m=1).
 */
#ifndef ROPECHECK_KERNEL_ABI_H_
#define ROPECHECK_KERNEL_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROPECHECK_ABI_VERSION 1u

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

/* How an implementation forms angles and cos/sin: its declared precision
 * policy. The error budget (docs/ERROR_MODEL.md) is derived from it, so a
 * kernel is judged against what it claims, never against a global atol. */
typedef enum ropecheck_angle_mode_t {
  ROPECHECK_ANGLE_F32_PRODUCT = 0, /* fl32(fl32(p) * w32) */
  ROPECHECK_ANGLE_F64 = 1          /* p * w64 in double, sin/cos taken in double */
} ropecheck_angle_mode_t;

typedef enum ropecheck_sincos_t {
  ROPECHECK_SINCOS_LIBM = 0, /* libm in the angle's precision, <= 1 ulp */
  ROPECHECK_SINCOS_FAST = 1  /* approximation with declared max abs error */
} ropecheck_sincos_t;

typedef struct ropecheck_policy_t {
  uint32_t struct_size;
  uint32_t freq_dtype;   /* F32 or F64: precision the scheme formulas are evaluated in */
  uint32_t angle_mode;   /* ropecheck_angle_mode_t */
  uint32_t sincos;       /* ropecheck_sincos_t */
  double sincos_max_abs_error; /* for SINCOS_FAST: declared bound on |approx - exact| */
  uint32_t math_dtype;   /* dtype of the rotation arithmetic: F32 */
  uint32_t cache_dtype;  /* dtype of the cos/sin values multiplied into the data */
} ropecheck_policy_t;

#define ROPECHECK_CAP_IN_PLACE (1u << 0)
#define ROPECHECK_CAP_OUT_OF_PLACE (1u << 1)
#define ROPECHECK_CAP_COS_SIN_CACHE (1u << 2) /* apply reads a [max_pos, rotary_dim] cache */
#define ROPECHECK_CAP_INVERSE (1u << 3)
#define ROPECHECK_CAP_PARTIAL_ROTARY (1u << 4)
#define ROPECHECK_CAP_POS_INT32 (1u << 5)
#define ROPECHECK_CAP_POS_INT64 (1u << 6)
#define ROPECHECK_CAP_NEGATIVE_POSITIONS (1u << 7)

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
  /* For ROPECHECK_CAP_COS_SIN_CACHE: row p holds m*cos(p w_i) for i < rotary_dim/2
   * then m*sin(p w_i), in cache_dtype (vLLM/FlashInfer layout, attention factor
   * folded in as HF does). */
  const void* cos_sin_cache;
  uint32_t cache_dtype;
  int64_t cache_max_position;  /* rows in the cache; ids must be in [0, this) */
} ropecheck_apply_params_t;

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
} ropecheck_impl_t;

/* Entry point a plugin shared library exports. Returns its implementations
 * (count in *count) or NULL if it cannot serve host_abi_version. */
typedef const ropecheck_impl_t* const* (*ropecheck_get_impls_fn)(uint32_t host_abi_version,
                                                                 uint32_t* count);
#define ROPECHECK_PLUGIN_ENTRY "ropecheck_get_impls"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ROPECHECK_KERNEL_ABI_H_ */
