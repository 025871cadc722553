// SPDX-License-Identifier: MIT
/* Part of the kernel ABI (kernel_abi.h, which includes it; include that):
 * the precision policy a table declares, ropecheck_policy_t (1.0), its
 * extension ropecheck_policy_ext_t (1.1) and the frequency form and
 * subnormal handling of ropecheck_policy_ext2_t (1.7). The error budgets are
 * derived from it (docs/ERROR_MODEL.md). */
#ifndef ROPECHECK_ABI_POLICY_H_
#define ROPECHECK_ABI_POLICY_H_

#include <stdint.h>

/* How an implementation forms angles and cos/sin: its declared precision
 * policy. The error budget (docs/ERROR_MODEL.md) is derived from it, so a
 * kernel is judged against what it claims, never against a global atol. */
typedef enum ropecheck_angle_mode_t {
  ROPECHECK_ANGLE_F32_PRODUCT = 0, /* fl32(fl32(p) * w32), w32 per pair from the scheme's formula */
  ROPECHECK_ANGLE_F64 = 1,         /* p * w64 in double, sin/cos taken in double */
  /* 1.1, ggml's CPU loop: theta_0 = fl32(p), theta_{i+1} = fl32(theta_i * ts), ts = powf(fl32(base), fl32(-2/d))
   * (NTK: the scaled base); then fl32(theta_i / fl32(ff_i)) (LongRoPE, Llama 3.1 factors), fl32(fl32(1 / fl32(s))
   * * theta) (linear) or YaRN's fp32 mix of theta and that; sin/cos in fp32. freq_dtype F32; every scheme but
   * explicit. */
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

/* 1.7: how the per-pair frequencies w_i are formed (E1 in
 * docs/ERROR_MODEL.md). The running product is not a form here: it is the
 * angle mode F32_RUNNING_PRODUCT, which forms frequency and angle in one
 * loop, and it takes POWER only. */
typedef enum ropecheck_freq_form_t {
  /* b^(-2i/d) (or 1 / b^(2i/d)) through pow, within freq_pow_max_ulp, then
   * the scheme's formula on it: every table before 1.7 */
  ROPECHECK_FREQ_POWER = 0,
  /* exp(-i * fl(fl(ln b) / (d/2))) in freq_dtype (MLX's mx.fast.rope, its
   * CPU and Metal paths): ln b rounded (within freq_pow_max_ulp ulps), the
   * division and the product by the pair index rounded, then exp within
   * freq_pow_max_ulp ulps plus freq_exp_slope |argument| relative. The
   * argument's error is relative to i ln(b) / (d/2), so it grows with the
   * pair index as the exponent's rounding does in POWER, three to four
   * times as fast. */
  ROPECHECK_FREQ_EXP_LOG = 1,
  /* a per-pair table of the exact frequencies (or of their reciprocals,
   * MLX's `freqs`) rounded once to freq_dtype, and inverted at most once
   * there (a table its caller computed in a wider precision) */
  ROPECHECK_FREQ_TABLE = 2
} ropecheck_freq_form_t;

/* 1.7: what the kernel does with values below the smallest normal number of
 * the dtype an operation is carried out in. */
typedef enum ropecheck_subnormals_t {
  ROPECHECK_SUBNORMALS_KEPT = 0, /* gradual underflow (IEEE 754): every table before 1.7 */
  /* flushed to zero: a subnormal input reads as zero (DAZ) and a subnormal
   * result is written as zero (FTZ), in every operation, the store to the
   * storage dtype included (XLA's CPU runtime, hence JAX on CPU; CUDA built
   * with -ftz=true or --use_fast_math; MXCSR.FTZ|DAZ set by -ffast-math's
   * crtfastmath.o) */
  ROPECHECK_SUBNORMALS_FLUSHED = 1
} ropecheck_subnormals_t;

/* 1.7: the policy's parts after 1.1's. Every field's 0 keeps the meaning a
 * 1.6 table has, so an all-zero struct (struct_size 0) is a 1.6 policy. */
typedef struct ropecheck_policy_ext2_t {
  uint32_t struct_size; /* sizeof(ropecheck_policy_ext2_t), or 0 with every field 0: none */
  uint32_t freq_form;   /* ropecheck_freq_form_t */
  uint32_t subnormals;  /* ropecheck_subnormals_t */
  uint32_t reserved;    /* must be 0 */
  /* EXP_LOG: the exp's relative error beyond its freq_pow_max_ulp ulps, per
   * unit of |argument|: an exp that scales its argument by a rounded
   * 1/ln 2 first (Cephes' expf, MLX's CPU exp) evaluates 2^(x fl(1/ln 2))
   * with that product rounded, off by |x| (u + |fl(1/ln 2) ln 2 - 1|)
   * relative. In [0, 2^-16]; 0 for every other form. */
  double freq_exp_slope;
} ropecheck_policy_ext2_t;

#endif /* ROPECHECK_ABI_POLICY_H_ */
