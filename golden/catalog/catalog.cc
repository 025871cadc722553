// SPDX-License-Identifier: MIT
// What a golden case carries besides its numbers: the definitions of golden/catalog/catalog.h.
#include "golden/catalog/catalog.h"

#include <cmath>
#include <cstdlib>

#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/numbers.h"
#include "ropecheck/policy.h"
#include "reference/frequencies.h"

namespace ropecheck::golden {
namespace {

constexpr FlagInfo kFlags[] = {
    {"LayoutHalfSplit", "pairs (x[i], x[i + d/2]): HF rotate_half, GPT-NeoX", "layout swapped"},
    {"LayoutInterleaved", "pairs (x[2i], x[2i+1]): GPT-J, Meta complex form", "layout swapped"},
    {"LayoutDegenerate",
     "rotary_dim is 2 or every position is 0: both layouts give the same result, so a swapped layout cannot fail here",
     "none: the control group of the layout flags"},
    {"PartialRotary", "rotary_dim < head_dim: channels from rotary_dim on pass through bit-identical",
     "pass-through channels modified; exponent over head_dim instead of rotary_dim"},
    {"GQA", "fewer k heads than q heads", "k rotated with q's head count"},
    {"Inverse", "direction inverse (rotation by -angle)", "rotation direction flipped"},
    {"NegativePosition", "a negative position id", "positions taken as unsigned or as an offset into a cache"},
    {"LongContext", "a position >= 2^20", "angles formed in fp32 or lower (error grows with position)"},
    {"BeyondFp32ExactPositions", "a position > 2^24, not exactly representable in fp32",
     "positions converted to fp32 before the product"},
    {"BeyondInt32", "a position > 2^31 - 1", "positions truncated to int32"},
    {"SchemeLinear", "linear position interpolation", "scale factor ignored"},
    {"SchemeNTK", "static NTK-aware base scaling", "exponent d/(d-2) wrong"},
    {"SchemeDynamicNTK", "dynamic NTK with seq_len > max_position_embeddings",
     "dynamic NTK computed as a constant"},
    {"SchemeYaRN", "YaRN frequency ramp", "ramp reversed; factor misapplied"},
    {"SchemeLlama31", "Llama 3.1 wavelength bands", "low/high frequency factors swapped"},
    {"SchemeLongRoPE", "LongRoPE per-pair factor lists", "wrong factor list"},
    {"SchemeExplicit", "explicit per-pair frequencies", "frequency table ignored"},
    {"YaRNTruncateOff", "YaRN with truncate = false (gpt-oss): fractional correction bounds",
     "truncate ignored (floor/ceil applied anyway)"},
    {"YaRNMscale", "YaRN attention factor from mscale / mscale_all_dim (DeepSeek)",
     "attention factor missing, applied twice, or mscale_all_dim ignored"},
    {"YaRNAttentionFactor", "YaRN or LongRoPE with an explicit attention_factor", "explicit value ignored"},
    {"Llama31BandEdge", "a pair's wavelength within 1% of a Llama 3.1 band edge (L/hf or L/lf)",
     "band boundaries off by one pair; factors swapped"},
    {"LongRoPELongFactors", "LongRoPE with seq_len > original_max_position: long_factor applies",
     "LongRoPE never switching to the long factors"},
    {"LongRoPEShortFactors", "LongRoPE with seq_len <= original_max_position: short_factor applies",
     "LongRoPE always using the long factors"},
    {"SubnormalInput", "an input element is subnormal in its dtype", "flush-to-zero of inputs or results"},
    {"SignedZeroInput", "an input element is -0", "sign of zero lost"},
    {"RealModelConfig", "the rope configuration of a published model (named in the case)",
     "any: the configs users actually run"},
    {"MultiAxis",
     "a position per axis (M-RoPE, axial vision RoPE; the case's axes): pair i rotates with positions[pair_axis[i]]",
     "one axis's positions (the temporal row) used for every pair; sections assigned to the wrong axes"},
    {"AxesInterleaved", "pairs assigned to the axes round robin (Qwen3-VL interleaved M-RoPE)",
     "interleaved M-RoPE read as consecutive sections"},
    {"AxisFrequencies",
     "per-axis frequencies: each axis restarts the scheme's frequencies over its own pairs (axial RoPE, FLUX)",
     "per-axis frequencies computed over the whole rotary_dim"},
};

// The flags of fused cases (a KV-cache write, manifest schema 4): listed in
// a manifest of version 4 only, so an export without fused cases keeps its
// bytes. Bug classes as docs/MUTANTS.md cites them.
constexpr FlagInfo kFusedFlags[] = {
    {"KvCacheWrite", "the call writes k and v into a paged KV cache through a slot mapping (kvWrite)",
     "the unrotated k cached; k and v scales swapped; the wrong slot written"},
    {"KvPaddingSlot", "a token with slot -1 (padding): nothing written, its q and k still rotated",
     "a padding token written into the last slot (vLLM #43810) or slot 0; its rotation skipped"},
    {"KvLayoutHND", "the cache is [blocks, heads, block_size, head_dim]", "NHD strides assumed"},
    {"KvBlockSize1", "blocks of one entry: every token in a block of its own", "block and entry confused"},
    {"KvAscendingSlots", "more than 16 tokens whose slots ascend with a gap between blocks (a prefill)",
     "a prefill's slots assumed contiguous from the first one"},
    {"KvCacheFp8", "an fp8 cache (e4m3fn or e5m2), codes judged one by one", "the scale ignored or misplaced"},
    {"KvPerHeadScales", "a scale per kv head", "one head's scale used for every head"},
    {"KvScaleMultiply", "the scale quantizes: round(x * s) (FlashInfer, TensorRT-LLM)",
     "the scale direction confused (x / s for x * s)"},
    {"KvSaturating", "an fp8 value beyond the format's range, stored as its largest finite value (saturate)",
     "overflow to NaN or infinity where the kernel declares saturation"},
    {"KvPassThroughCached", "partial rotary: the pass-through channels are cached as given",
     "pass-through channels not cached (SGLang PR #22868)"},
    {"MlaJointCache", "MLA: the entry is [kv_c | k_pe] in one cache (vLLM's concat_and_cache_mla)",
     "the entry's order swapped; the latent rotated"},
    {"MlaSplitCache", "MLA: k_pe and kv_c in caches of their own (FlashInfer's kpe_cache / ckv_cache)",
     "half the rope dims rotated (vLLM PR #41185)"},
};

// The flags of cases with a qk-norm or the caller's cos/sin cache (manifest
// schema 5 lists them).
constexpr FlagInfo kFusedInputFlags[] = {
    {"QkNorm", "the call carries a qk-norm (qkNorm): every head of q and k normalised by RMSNorm over its head_dim "
               "channels, then rotated; pass-through channels hold the normalised values",
     "the norm applied after the rotation (tenstorrent/tt-mlir PR #9042); eps dropped; the statistic over the "
     "rotary channels; q's weight used for k"},
    {"QkNormOnePlusW", "Gemma's weight form: x * (1 + w) / rms", "1 + w taken for w, or the reverse"},
    {"QkNormRoundedIntermediate", "the budgets assume the normalised value rounded to the case dtype (transformers' "
                                  "Qwen3RMSNorm / Gemma3RMSNorm), not kept in fp32",
     "an intermediate rounded where fp32 is declared"},
    {"CallerCosSinCache", "the kernel reads the caller's cos/sin cache (cos_sin_cache [rows, rotary_dim], cos half "
                          "then sin half; NaN in the rows no position names) and must not modify it",
     "the cache downcast to the query dtype (SGLang PR #33117); its halves swapped; the row of the token index "
     "read in place of its position's"},
    {"CallerCacheInActivationDtype", "the caller's cos/sin cache is in the case dtype (bf16/fp16), not fp32",
     "a budget that ignores the cache's rounding"},
};

// Tightest to loosest within each group; every one passes check_policy().
// Which one describes which framework code: golden/README.md.
const BudgetPolicy kPolicies[] = {
    {"exact_f64",
     "float64 throughout (numpy, JAX with x64, PyTorch float64), result rounded once to the dtype",
     libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F64, ROPECHECK_DTYPE_F64)},
    {"f32_math_f64_angle",
     "fp32 frequencies and rotation, angle p*w as a double product, sin/cos in double, cos/sin rounded to fp32",
     libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32)},
    {"f32_angle_product",
     "HF transformers in fp32, and the Meta/Mistral complex form in any dtype: inv_freq fp32, positions cast to "
     "fp32, angle fl32(p * w), cos/sin and rotation in fp32, the result cast to the dtype",
     libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32)},
    {"f32_angle_bf16_cache",
     "as f32_angle_product with the cos/sin table cast to bf16 (HF with a bf16 model), rotation in fp32",
     libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_BF16)},
    {"f32_math_storage_cos_sin",
     "cos/sin cast to the activation dtype, rotation in fp32, the result cast to it: the closest an ABI 1.0 policy "
     "came to HF eager, which rounds every op in the activation dtype (under this policy HF eager fails)",
     libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_OF_STORAGE)},
    {"hf_eager",
     "HF transformers eager apply_rotary_pos_emb in the activation dtype: fp32 angles and cos/sin cast to q.dtype, "
     "q*cos, rotate_half(q)*sin and their sum each rounded to q.dtype (fp32: as f32_angle_product)",
     libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_OF_STORAGE,
                 ROPECHECK_DTYPE_OF_STORAGE)},
    {"fma_storage",
     "as hf_eager with one product fused into the sum: fma(x, c, -(y*s)) in the activation dtype (bf16/fp16 HFMA, "
     "vLLM-style kernels)",
     with_rotation(libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_OF_STORAGE,
                               ROPECHECK_DTYPE_OF_STORAGE),
                   ROPECHECK_ROTATION_FMA)},
    {"cuda_f32",
     "a CUDA kernel in fp32: powf frequencies (4 ulps documented, 4.5 from exact), fp32 angle, sinf/cosf (2 "
     "ulps documented, 2.5 from exact), x*c - y*s with an FMA, result cast to the dtype",
     with_libm_ulps(with_rotation(libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32,
                                              ROPECHECK_DTYPE_F32),
                                  ROPECHECK_ROTATION_FMA),
                    2.5, 4.5)},
};

// MLX's CPU math (mlx/backend/cpu/simd/math.h, v0.32.1; docs/ERROR_MODEL.md,
// "MLX's exp and sin/cos"). exp: 2^(x fl32(1/ln 2)) with that product
// rounded, |x| (u32 + |fl32(1/ln 2) ln 2 - 1|) = 7.2954e-8 |x| relative,
// rounded up; its polynomial stays within 1 ulp beyond that (measured, 2e7
// arguments of [-25, 0], bench/mlx_math_sweep.py). sin/cos: at most
// 7.7731e-8 from the exact value over every fp32 of [0, 2 pi] (measured by
// the same sweep), rounded up; the Cephes reduction x - y DP1 - y DP2 - y DP3
// (y = x 4/pi rounded to an integer) rounds its first fma result, of
// magnitude y (pi/4 - DP1), once: a phase error of u32 (1 - 4 DP1 / pi) |x| =
// 1.8359e-11 |x|, plus the constants' own 1.1e-15 relative, rounded up.
constexpr double kMlxExpSlope = 7.2955e-8;
constexpr double kMlxSinCosAbs = 7.78e-8;
constexpr double kMlxSinCosSlope = 1.84e-11;

// Tightest to loosest, as kPolicies. docs/ERROR_MODEL.md derives each part.
const BudgetPolicy kDeclaredPolicies[] = {
    {"f32_sleef_u35",
     "as f32_angle_product with sin/cos within 3.5 ulps: SLEEF's *_u35 functions (SLEEF documents "
     "Sleef_sinf_u35 and Sleef_cosf_u35 at 3.5 ULP), which PyTorch's at::vec Vectorized<float>::sin/cos call: "
     "torch.compile's Inductor CPU code",
     with_libm_ulps(libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32,
                                ROPECHECK_DTYPE_F32),
                    3.5, 0)},
    {"xla_cpu",
     "as f32_angle_product with subnormals flushed: XLA's CPU runtime runs with FTZ/DAZ set, so every fp32 "
     "input, intermediate and result below 2^-126 reads and is written as zero (JAX on CPU; bf16 is computed in "
     "fp32 there)",
     with_subnormals_flushed(libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32,
                                         ROPECHECK_DTYPE_F32))},
    {"mlx_cpu",
     "MLX's mx.fast.rope on CPU (mlx/fast.cpp's fallback): w = exp(-i fl32(logf(b) / (d/2))) with MLX's exp (1 "
     "ulp plus 7.3e-8 |x|: its argument scaled by fl32(1/ln 2) first), fp32 angle product, MLX's Cephes sin/cos "
     "(7.78e-8 abs over every fp32 of [0, 2 pi], a phase error of 1.84e-11 |x| from its reduction), cos/sin cast "
     "to the activation dtype, every rotation op rounded to it",
     with_freq_form(with_fast_range(fast_sincos_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT,
                                                       kMlxSinCosAbs, ROPECHECK_DTYPE_OF_STORAGE,
                                                       ROPECHECK_DTYPE_OF_STORAGE),
                                    0.0, kMlxSinCosSlope),
                    ROPECHECK_FREQ_EXP_LOG, kMlxExpSlope)},
    {"mlx_cpu_freqs",
     "as mlx_cpu with mx.fast.rope's freqs: the caller's table of 1/w (rounded once to fp32) inverted in fp32",
     with_freq_form(with_fast_range(fast_sincos_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT,
                                                       kMlxSinCosAbs, ROPECHECK_DTYPE_OF_STORAGE,
                                                       ROPECHECK_DTYPE_OF_STORAGE),
                                    0.0, kMlxSinCosSlope),
                    ROPECHECK_FREQ_TABLE)},
};

bool is_subnormal(double v, ropecheck_dtype_t t) {
  const DtypeFormat f = dtype_format(t);
  return std::fabs(v) > 0 && std::fabs(v) < std::ldexp(1.0, f.emin);
}

}  // namespace

std::span<const FlagInfo> flag_catalog() { return kFlags; }
std::span<const FlagInfo> fused_flag_catalog() { return kFusedFlags; }
std::span<const FlagInfo> fused_input_flag_catalog() { return kFusedInputFlags; }

const FlagInfo* find_flag(const std::string& name) {
  for (const auto& f : kFlags)
    if (name == f.name) return &f;
  for (const auto& f : kFusedFlags)
    if (name == f.name) return &f;
  for (const auto& f : kFusedInputFlags)
    if (name == f.name) return &f;
  return nullptr;
}

std::span<const BudgetPolicy> budget_policies() { return kPolicies; }
std::span<const BudgetPolicy> declared_policies() { return kDeclaredPolicies; }

const BudgetPolicy* find_named_policy(const std::string& name) {
  for (const BudgetPolicy& p : kPolicies)
    if (name == p.name) return &p;
  for (const BudgetPolicy& p : kDeclaredPolicies)
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<std::string> derive_flags(const Case& c, const QkBuffers& in) {
  std::vector<std::string> f;
  const int d = c.shape.rotary_dim;
  f.push_back(c.layout == ROPECHECK_LAYOUT_HALF_SPLIT ? "LayoutHalfSplit" : "LayoutInterleaved");
  bool any_nonzero = false, negative = false;
  for (std::int64_t p : c.positions) {
    any_nonzero |= p != 0;
    negative |= p < 0;
  }
  const std::int64_t max_abs = c.max_abs_position();
  if (d == 2 || !any_nonzero) f.push_back("LayoutDegenerate");
  if (d < c.shape.head_dim) f.push_back("PartialRotary");
  if (c.kv_heads < c.q_heads) f.push_back("GQA");
  if (c.direction == ROPECHECK_DIRECTION_INVERSE) f.push_back("Inverse");
  if (negative) f.push_back("NegativePosition");
  if (max_abs >= (std::int64_t{1} << 20)) f.push_back("LongContext");
  if (max_abs > (std::int64_t{1} << 24)) f.push_back("BeyondFp32ExactPositions");
  if (max_abs > INT32_MAX) f.push_back("BeyondInt32");
  if (c.axes.multi()) {
    f.push_back("MultiAxis");
    if (c.axes.assignment == ROPECHECK_AXES_INTERLEAVED) f.push_back("AxesInterleaved");
    if (c.axes.frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS) f.push_back("AxisFrequencies");
  }
  const ref::FreqSpec& s = c.freq;
  switch (s.scheme) {
    case ROPECHECK_SCHEME_LINEAR: f.push_back("SchemeLinear"); break;
    case ROPECHECK_SCHEME_NTK_AWARE: f.push_back("SchemeNTK"); break;
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      if (s.seq_len > s.original_max_position) f.push_back("SchemeDynamicNTK");
      break;
    case ROPECHECK_SCHEME_YARN:
      f.push_back("SchemeYaRN");
      if (!s.truncate) f.push_back("YaRNTruncateOff");
      if (!s.attention_factor && (std::fabs(s.mscale) > 0 || std::fabs(s.mscale_all_dim) > 0)) f.push_back("YaRNMscale");
      break;
    case ROPECHECK_SCHEME_LLAMA3: {
      f.push_back("SchemeLlama31");
      // Wavelengths of the unscaled frequencies (the reference's), against
      // the band edges L/hf and L/lf.
      ref::FreqSpec plain = s;
      plain.scheme = ROPECHECK_SCHEME_DEFAULT;
      const auto w = ref::compute_frequencies<ref::Real>(plain, d).inv_freq;
      const double L = static_cast<double>(s.original_max_position);
      for (int i = 0; i < d / 2; ++i) {
        const double wavelen = kTwoPi / w[i].convert_to<double>();
        if (std::fabs(wavelen / (L / s.high_freq_factor) - 1) < 0.01 ||
            std::fabs(wavelen / (L / s.low_freq_factor) - 1) < 0.01) {
          f.push_back("Llama31BandEdge");
          break;
        }
      }
      break;
    }
    case ROPECHECK_SCHEME_LONGROPE:
      f.push_back("SchemeLongRoPE");
      f.push_back(s.seq_len > s.original_max_position ? "LongRoPELongFactors" : "LongRoPEShortFactors");
      break;
    case ROPECHECK_SCHEME_EXPLICIT: f.push_back("SchemeExplicit"); break;
    default: break;
  }
  if (s.attention_factor && (s.scheme == ROPECHECK_SCHEME_YARN || s.scheme == ROPECHECK_SCHEME_LONGROPE))
    f.push_back("YaRNAttentionFactor");
  bool subnormal = false, neg_zero = false;
  const Geometry g = geometry(c);
  for (int w = 0; w < 2; ++w)
    for (std::int64_t i = 0; i < g.elements[w]; ++i) {
      const double v = load_as_double(in.bytes[w].data(), static_cast<std::size_t>(i), c.dtype);
      subnormal |= is_subnormal(v, c.dtype);
      neg_zero |= exactly_equal(v, 0.0) && std::signbit(v);
    }
  if (subnormal) f.push_back("SubnormalInput");
  if (neg_zero) f.push_back("SignedZeroInput");
  return f;
}

}  // namespace ropecheck::golden
