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

#ifdef __cplusplus
extern "C" {
#endif

#define ROPECHECK_ABI_VERSION 1u
#define ROPECHECK_ABI_VERSION_MINOR 4u

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

/* How an implementation forms angles and cos/sin: its declared precision
 * policy. The error budget (docs/ERROR_MODEL.md) is derived from it, so a
 * kernel is judged against what it claims, never against a global atol. */
typedef enum ropecheck_angle_mode_t {
  ROPECHECK_ANGLE_F32_PRODUCT = 0, /* fl32(fl32(p) * w32), w32 per pair from the scheme's formula */
  ROPECHECK_ANGLE_F64 = 1,         /* p * w64 in double, sin/cos taken in double */
  /* 1.1, ggml's CPU loop: theta_0 = fl32(p), theta_{i+1} = fl32(theta_i * ts)
   * with ts = powf(fl32(base), fl32(-2/d)); then fl32(theta_i / fl32(ff_i))
   * (LongRoPE factors) and fl32(fl32(1 / fl32(s)) * theta) (linear); sin/cos
   * in fp32. freq_dtype F32; schemes default, linear, longrope only. */
  ROPECHECK_ANGLE_F32_RUNNING_PRODUCT = 2
} ropecheck_angle_mode_t;

typedef enum ropecheck_sincos_t {
  ROPECHECK_SINCOS_LIBM = 0, /* libm in the angle's precision, within policy_ext.sincos_max_ulp (default 1) */
  ROPECHECK_SINCOS_FAST = 1  /* approximation with a declared max abs error (and, 1.1, its range) */
} ropecheck_sincos_t;

/* 1.1: how x c - y s (and x s + y c) is rounded in math_dtype. */
typedef enum ropecheck_rotation_form_t {
  /* both products and their sum each rounded (three roundings): the default,
   * and what every 1.0 table means; also covers a compiler contracting them
   * into a fused multiply-add (-ffp-contract=fast) */
  ROPECHECK_ROTATION_SEPARATE = 0,
  /* one product rounded, the other fused into the sum: fma(x, c, -fl(y s)),
   * in either operand order (two roundings) */
  ROPECHECK_ROTATION_FMA = 1
} ropecheck_rotation_form_t;

typedef struct ropecheck_policy_t {
  uint32_t struct_size;
  uint32_t freq_dtype;   /* F32 or F64: precision the scheme formulas are evaluated in */
  uint32_t angle_mode;   /* ropecheck_angle_mode_t */
  uint32_t sincos;       /* ropecheck_sincos_t */
  double sincos_max_abs_error; /* for SINCOS_FAST: declared bound on |approx - exact| (within
                                  policy_ext.sincos_abs_error_range, 1.1) */
  uint32_t math_dtype;   /* dtype of the rotation arithmetic: F32 or F64; 1.1: also BF16, F16 or
                            OF_STORAGE (each operation rounded to it; it must hold every storage value) */
  uint32_t cache_dtype;  /* dtype of the cos/sin values multiplied into the data; 1.1: also OF_STORAGE */
} ropecheck_policy_t;

/* 1.1: the rest of the precision policy. Every field's 0 keeps the meaning a
 * 1.0 table has, so an all-zero extension (struct_size 0) is a 1.0 policy. */
typedef struct ropecheck_policy_ext_t {
  uint32_t struct_size;   /* sizeof(ropecheck_policy_ext_t), or 0 with every field 0: no extension */
  uint32_t rotation_form; /* ropecheck_rotation_form_t */
  /* LIBM: |computed sin/cos - exact| <= this many ulps of the exact value in
   * the precision sin/cos are evaluated in (fp64 for ANGLE_F64, else fp32).
   * 0 means 1 (glibc, SLEEF u10). CUDA documents sinf/cosf and sin/cos at 2
   * ulps from the correctly rounded result: declare 2.5. In {0} or [0.5, 16]. */
  double sincos_max_ulp;
  /* FAST: sincos_max_abs_error holds for |argument| <= this range; 0 means
   * for every argument (1.0). */
  double sincos_abs_error_range;
  /* FAST: beyond the range (everywhere when it is 0) the approximation returns
   * sin/cos of an argument off by at most slope * |argument| (a phase error,
   * as a range reduction by a rounded 1/(2 pi) makes), plus the abs error.
   * CUDA __sinf/__cosf on their argument: range fl32(pi), slope 1.5955e-7.
   * A range needs a slope. In [0, 2^-10]. */
  double sincos_phase_error_slope;
  /* pow/exp/log in the scheme's frequency formulas: ulps from the exact value;
   * 0 means 1. CUDA documents powf at 4 ulps: declare 4.5. In {0} or [0.5, 16]. */
  double freq_pow_max_ulp;
  /* 1: position ids converted to fp32 before the angle product (exact only up
   * to 2^24); 0: in the angle's precision (F32_PRODUCT and
   * F32_RUNNING_PRODUCT always convert to fp32). */
  uint32_t positions_f32;
  uint32_t reserved;      /* must be 0 */
} ropecheck_policy_ext_t;

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
} ropecheck_kv_write_t;

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
} ropecheck_apply_params_t;

/* struct_size of the params of each minor version. */
#define ROPECHECK_APPLY_PARAMS_SIZE_1_1 offsetof(ropecheck_apply_params_t, seq_len)
#define ROPECHECK_APPLY_PARAMS_SIZE_1_2 offsetof(ropecheck_apply_params_t, num_axes)
#define ROPECHECK_APPLY_PARAMS_SIZE_1_3 offsetof(ropecheck_apply_params_t, kv_write)
#define ROPECHECK_APPLY_PARAMS_SIZE_1_4 sizeof(ropecheck_apply_params_t)

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

/* Entry point a plugin shared library exports. Returns its implementations
 * (count in *count) or NULL if it cannot serve host_abi_version. */
typedef const ropecheck_impl_t* const* (*ropecheck_get_impls_fn)(uint32_t host_abi_version,
                                                                 uint32_t* count);
#define ROPECHECK_PLUGIN_ENTRY "ropecheck_get_impls"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ROPECHECK_KERNEL_ABI_H_ */
