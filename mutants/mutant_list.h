// SPDX-License-Identifier: MIT
// The bug catalogue: one realistic bug per row, each a bug class seen in
// public trackers (layouts, directions, exponents, scaling formulas, angle
// precision, bounds). This table is the single source of the mutant kernels
// (mutant_kernel.cc), the plugins built from them (mutants/CMakeLists.txt
// reads the names from here), the in-process gate test (gate/test), the
// differential fuzzer's named targets (fuzz/), `ropecheck mutants`, and of
// each row's bug class, published bug and golden visibility, which `golden
// export` stores beside its outputs (the command hands them to golden/,
// which does not link mutants/).
#ifndef ROPECHECK_MUTANTS_MUTANT_LIST_H_
#define ROPECHECK_MUTANTS_MUTANT_LIST_H_

namespace ropecheck::mutant {

// Why no golden case can show a row's bug (the last column below; "" when
// a plain golden case can: golden/README.md, "Invalid and acceptable
// outputs").
inline constexpr const char* kNotShownShortCache =
    "reads past the cos/sin cache only when handed one a row short (RefusesPositionsBeyondTheCache)";
inline constexpr const char* kNotShownBatches =
    "shows only on a batch of several sequences";
inline constexpr const char* kNotShownInBudget =
    "in budget by design: only its bits' dependence on the batch shows (IsBatchInvariant)";
inline constexpr const char* kNotShownWithoutK =
    "shows only on a call without k (RotatesQTheSameWithoutK)";
inline constexpr const char* kNotShownOutOfPlace =
    "shows only out of place (WritesOnlyItsViews)";
inline constexpr const char* kNotShownCache =
    "wrong only in the KV cache it writes";
inline constexpr const char* kNotShownQkNorm =
    "wrong only in a call fused with a qk-norm";
inline constexpr const char* kNotShownCallerCache =
    "wrong only with a cos/sin cache the caller passes in (ABI 1.6)";
inline constexpr const char* kNotShownQuant =
    "wrong only in a quantized (fp8) output (ABI 1.8)";
inline constexpr const char* kNotShownCrashes =
    "under GQA it writes past k's end: a crash (isolation names it), not an output";

// X(name, what the kernel does wrong, properties the default gate must fail
//   it on, '|'-separated ("" when only a kill is asserted), the suite that
//   kills it ("" for the default gate's quick suite), its bug class (a
//   class golden/catalog/bug_classes.h defines; "" for the control), the
//   published bug it reproduces, quoted from its description ("" when it
//   cites none), and why no plain golden case can show it ("" when one
//   can; a kNotShown* above))
#define ROPECHECK_MUTANTS(X)                                                                                 \
  X(none, "control: the clean kernel every mutant is one change away from (must pass)", "", "",              \
    "", "", "")                                                                                              \
  X(layout_swapped, "pairs (x[2i], x[2i+1]) for half_split and (x[i], x[i+d/2]) for interleaved",            \
    "ConformsToReference|IsLayoutEquivariant", "",                                                           \
    "Pairing", "", "")                                                                                       \
  X(direction_flipped, "rotates by -angle forward and +angle inverse", "ConformsToReference", "",            \
    "Direction", "", "")                                                                                     \
  X(exponent_over_head_dim, "w_i = b^(-2i/head_dim) instead of b^(-2i/rotary_dim) (partial rotary)", "", "", \
    "FrequencyFormula", "", "")                                                                              \
  X(exponent_off_by_one, "w_i = b^(-2i/(d+2)): the exponent's denominator one pair off", "", "",             \
    "FrequencyFormula", "", "")                                                                              \
  X(last_pair_unrotated, "the last pair is passed through (a loop bound one short)", "", "",                 \
    "Unrotated", "", "")                                                                                     \
  X(pass_through_scaled, "the attention factor also multiplies the pass-through channels",                   \
    "ConformsToReference|KeepsPassThroughBitExact", "",                                                      \
    "AttentionFactor", "", "")                                                                               \
  X(angle_in_bf16, "the angle p*w_i rounded to bf16 before sin/cos",                                         \
    "ConformsToReference|DependsOnlyOnRelativePosition|ComposesAdditively", "",                              \
    "AnglePrecision", "", "")                                                                                \
  X(angle_in_fp16, "the angle p*w_i rounded to fp16 before sin/cos",                                         \
    "ConformsToReference|DependsOnlyOnRelativePosition", "",                                                 \
    "AnglePrecision", "", "")                                                                                \
  X(cos_sin_in_bf16, "cos/sin rounded to bf16 while the policy declares fp32", "", "",                       \
    "TrigPrecision", "", "")                                                                                 \
  X(running_product_angles, "angles by an fp32 running product theta *= b^(-2/d) (ggml CPU)", "", "",        \
    "AnglePrecision", "", "")                                                                                \
  X(fast_sincos_no_range_reduction, "sin/cos by a series valid on [-pi, pi] applied to the raw angle",       \
    "", "",                                                                                                  \
    "TrigPrecision", "", "")                                                                                 \
  X(yarn_attention_factor_missing, "YaRN attention factor (mscale) not applied", "", "",                     \
    "AttentionFactor", "", "")                                                                               \
  X(yarn_attention_factor_twice, "YaRN attention factor applied twice (to q and k and again to cos/sin)",    \
    "", "",                                                                                                  \
    "AttentionFactor", "", "")                                                                               \
  X(yarn_explicit_factor_ignored, "YaRN's explicit attention_factor ignored for the derived one", "", "",    \
    "AttentionFactor", "", "")                                                                               \
  X(yarn_truncate_ignored, "YaRN truncate=false ignored: the correction bounds floored/ceiled anyway",       \
    "", "",                                                                                                  \
    "ScalingFormula", "", "")                                                                                \
  X(yarn_ramp_reversed, "YaRN ramp reversed: interpolation where extrapolation belongs", "", "",             \
    "ScalingFormula", "", "")                                                                                \
  X(llama31_factors_swapped, "Llama 3.1 low_freq_factor and high_freq_factor swapped", "", "",               \
    "ScalingFormula", "", "")                                                                                \
  X(dynamic_ntk_constant, "dynamic NTK computed as the static NTK base b s^(d/(d-2)), ignoring seq_len",     \
    "", "",                                                                                                  \
    "ScalingFormula", "", "")                                                                                \
  X(longrope_never_switching, "LongRoPE always uses the short factors", "", "",                              \
    "ScalingFormula", "", "")                                                                                \
  X(position_offset_ignored, "token index used as position: the KV-cache offset, or a chunked prefill's "    \
    "chunk offset, ignored (positions restarting at 0 per chunk: transformers #43082)", "", "",              \
    "Positions", "transformers #43082", "")                                                                  \
  X(k_rotated_with_q_heads, "k rotated with q's head count: past the end of k under GQA", "", "",            \
    "Addressing", "", kNotShownCrashes)                                                                      \
  X(cache_no_bounds_check, "cos/sin cache read at positions past its last row (no bounds check)", "", "",    \
    "Addressing", "", kNotShownShortCache)                                                                   \
  X(layout_swapped_above_4096, "the other pairing layout for positions above 4096 (a second code path)",     \
    "", "",                                                                                                  \
    "Pairing", "", "")                                                                                       \
  X(layout_swapped_head_dim_192, "the other pairing layout when head_dim >= 192 (a size-dependent path)",    \
    "", "",                                                                                                  \
    "Pairing", "", "")                                                                                       \
  X(hf_eager_math_declared_f32,                                                                              \
    "HF eager (every op rounded to bf16/fp16, policy_hf_eager) declaring fp32 rotation math",                \
    "ConformsToReference", "",                                                                               \
    "RotationRounding", "", "")                                                                              \
  X(hf_eager_cos_sin_cast_undeclared,                                                                        \
    "HF eager declaring cos/sin in fp32 while it casts them to the activation dtype",                        \
    "", "",                                                                                                  \
    "TrigPrecision", "", "")                                                                                 \
  X(fma_storage_product_rounded,                                                                             \
    "policy_fma_storage rounding the fused product first: three roundings, two declared",                    \
    "", "",                                                                                                  \
    "RotationRounding", "", "")                                                                              \
  X(cuda_powf_cos_sin_cast_undeclared,                                                                       \
    "policy_cuda_powf with cos/sin rounded to the storage dtype, undeclared",                                \
    "", "",                                                                                                  \
    "TrigPrecision", "", "")                                                                                 \
  X(ggml_declared_per_pair_product,                                                                          \
    "ggml's running fp32 product (policy_ggml_cpu) declaring per-pair fp32 products",                        \
    "", "",                                                                                                  \
    "AnglePrecision", "", "")                                                                                \
  X(ggml_long_factors_fixed,                                                                                 \
    "policy_ggml_cpu with LongRoPE's long factors fixed, where seq_len selects the short",                   \
    "", "",                                                                                                  \
    "ScalingFormula", "", "")                                                                                \
  X(ggml_yarn_ramp_channel_index,                                                                            \
    "policy_ggml_cpu with YaRN's ramp taken at the channel index i0 where ggml's rope_yarn_ramp takes i0/2", \
    "ConformsToReference", "",                                                                               \
    "ScalingFormula", "", "")                                                                                \
  X(ggml_running_product_bf16, "policy_ggml_cpu with its running product theta rounded to bf16 at every step", \
    "ConformsToReference", "",                                                                               \
    "AnglePrecision", "", "")                                                                                \
  X(fast_sincos_past_range,                                                                                  \
    "__sincosf on unreduced angles (policy_fast_sincos) declaring its [-pi, pi] error everywhere",           \
    "ConformsToReference", "",                                                                               \
    "TrigPrecision", "", "")                                                                                 \
  X(fp32_positions_undeclared,                                                                               \
    "policy_f64_fp32_positions (fp32 positions, double angle) declaring exact positions",                    \
    "", "exhaustive",                                                                                        \
    "AnglePrecision", "", "")                                                                                \
  X(flushed_subnormals_undeclared,                                                                           \
    "policy_flush_subnormals (FTZ/DAZ, XLA's CPU runtime) declaring subnormals kept",                        \
    "ConformsToReference", "",                                                                               \
    "RotationRounding", "", "")                                                                              \
  X(exp_log_declared_power,                                                                                  \
    "policy_exp_log (MLX's exp(-i ln(b) / (d/2)) frequencies) declaring the power form",                     \
    "ConformsToReference", "",                                                                               \
    "AnglePrecision", "", "")                                                                                \
  X(formula_declared_table,                                                                                  \
    "frequencies formed in fp32 by each scheme's formula, declared as a table of exact values (policy_freq_table)", \
    "ConformsToReference", "",                                                                               \
    "AnglePrecision", "", "")                                                                                \
  X(yarn_truncation_dropped, "declares YARN_TRUNCATED_ONLY, but never floors/ceils YaRN's correction range", \
    "", "",                                                                                                  \
    "ScalingFormula", "", "")                                                                                \
  X(attention_factor_dropped_no_explicit,                                                                    \
    "declares NO_EXPLICIT_ATTENTION_FACTOR and drops the derived YaRN mscale too",                           \
    "", "",                                                                                                  \
    "AttentionFactor", "", "")                                                                               \
  X(k_head_stride_from_q, "k addressed with q's head stride (SGLang #20559)", "", "",                        \
    "Addressing", "SGLang #20559", "")                                                                       \
  X(seq_stride_ignored, "batched tokens addressed as one run, the stride between sequences ignored",         \
    "", "",                                                                                                  \
    "Addressing", "", kNotShownBatches)                                                                      \
  X(decode_first_row_position, "batched decode rotates every sequence with the first one's position (MLX #3494)", \
    "", "",                                                                                                  \
    "Positions", "MLX #3494", kNotShownBatches)                                                              \
  X(batch_positions_ignored, "every sequence of a batch rotated with the first sequence's positions "        \
    "(Liger-Kernel PR #477)", "", "",                                                                        \
    "Positions", "Liger-Kernel PR #477", kNotShownBatches)                                                   \
  X(k_unrotated_single_kv_head, "k passed through unrotated when there is one kv head (Liger-Kernel #342)",  \
    "", "",                                                                                                  \
    "Unrotated", "Liger-Kernel #342", "")                                                                    \
  X(tail_pairs_unrotated, "a vector loop of 8 pairs with no tail: the last pairs % 8 pairs unrotated",       \
    "", "",                                                                                                  \
    "Unrotated", "", "")                                                                                     \
  X(partition_drops_tail_rows, "rows split in blocks of 64, the last partial block dropped",                 \
    "", "",                                                                                                  \
    "Unrotated", "", "")                                                                                     \
  X(fma_when_many_tokens, "a prefill path for calls of more than 32 tokens that fuses the rotation into an " \
    "FMA: in budget, but a token's bits depend on its batch", "IsBatchInvariant", "",                        \
    "RotationRounding", "", kNotShownInBudget)                                                               \
  X(fma_when_q_alone, "q alone (no k in the call) rotated through a fused multiply-add: in budget, other bits", \
    "RotatesQTheSameWithoutK", "",                                                                           \
    "RotationRounding", "", kNotShownWithoutK)                                                               \
  X(clears_output_span, "out of place, zero-fills the output's whole span (padding, the rest of a fused qkv " \
    "row) before rotating", "WritesOnlyItsViews", "",                                                        \
    "Addressing", "", kNotShownOutOfPlace)                                                                   \
  X(mrope_layout_hard_coded, "multi-axis calls paired as rotate_half whatever the layout (vLLM #49290)",     \
    "ConformsToReference|ReducesTo1dWhenAxesAgree", "",                                                      \
    "Pairing", "vLLM #49290", "")                                                                            \
  X(mrope_temporal_only, "multi-axis calls rotated with the temporal row of the [axes, T] positions only "   \
    "(SGLang #35345)", "ConformsToReference|IsAxisSeparable", "",                                            \
    "MultiAxis", "SGLang #35345", "")                                                                        \
  X(mrope_sections_reversed, "the sections assigned to the axes in reverse order (w, h, t sizes for t, h, w)", \
    "ConformsToReference|IsAxisSeparable", "",                                                               \
    "MultiAxis", "", "")                                                                                     \
  X(mrope_interleaved_as_sections, "interleaved M-RoPE (Qwen3-VL) read as consecutive sections",             \
    "ConformsToReference|IsAxisSeparable", "",                                                               \
    "MultiAxis", "", "")                                                                                     \
  X(mrope_partial_over_head_dim, "partial rotary with multi-axis positions: half-split pairs formed across " \
    "head_dim/2, as if every channel rotated (MaxText #4616)", "", "",                                       \
    "Pairing", "MaxText #4616", "")                                                                          \
  X(axis_frequencies_shared, "per-axis frequencies (axial vision RoPE) computed over the whole rotary_dim",  \
    "ConformsToReference", "",                                                                               \
    "MultiAxis", "", "")                                                                                     \
  X(axis_stride_ignored, "axis row a of the positions read at a * num_tokens, position_axis_stride ignored", \
    "ConformsToReference", "",                                                                               \
    "MultiAxis", "", "")                                                                                     \
  X(kv_padding_writes_last_slot, "KV-cache write: a padding token's slot -1 taken as the last slot "         \
    "(-1 // block_size, -1 % block_size: vLLM #43810)", "LeavesTheRestOfTheCacheUnchanged", "",              \
    "KvCacheWrite", "vLLM #43810", kNotShownCache)                                                           \
  X(kv_scales_swapped, "KV-cache write: k quantized with v_scale and v with k_scale (SGLang PR #26852)",     \
    "CachesTheRotatedKAndV", "",                                                                             \
    "KvCacheWrite", "SGLang PR #26852", kNotShownCache)                                                      \
  X(kv_scale_direction_flipped, "KV-cache write: x * scale where the table declares x / scale (vLLM's "      \
    "convention read as FlashInfer's)", "CachesTheRotatedKAndV", "",                                         \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(kv_scale_ignored, "KV-cache write: the scale never applied, the default 1.0 kept (vLLM PR #34863)",      \
    "CachesTheRotatedKAndV", "",                                                                             \
    "KvCacheWrite", "vLLM PR #34863", kNotShownCache)                                                        \
  X(kv_pass_through_not_cached, "KV-cache write: partial rotary's pass-through channels of k not copied "    \
    "into the cache (SGLang PR #22868)", "CachesTheRotatedKAndV", "",                                        \
    "KvCacheWrite", "SGLang PR #22868", kNotShownCache)                                                      \
  X(kv_unrotated_k_cached, "KV-cache write: the cache written from k before its rotation",                   \
    "CachesTheRotatedKAndV", "",                                                                             \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(kv_contiguous_prefill_slots, "KV-cache write: a prefill path, for calls of more than 16 tokens whose "   \
    "slots ascend, that writes them as one run from the first slot (a prefill's slots assumed contiguous "   \
    "across blocks)",                                                                                        \
    "PermutingSlotsPermutesTheCache", "",                                                                    \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(kv_padding_skips_rotation, "KV-cache write: a padding token returns before its q and k are rotated "     \
    "(vLLM's concat_and_cache_mla_rope_fused: `if (!has_slot_mapping) return;`)", "ConformsToReference", "", \
    "KvCacheWrite", "vLLM's concat_and_cache_mla_rope_fused", "")                                            \
  X(kv_ties_away_from_zero, "KV-cache write: a tie between two codes rounded away from zero (C's roundf, "   \
    "a hand-written fp8 encoder) where the conversion rounds to nearest even, in every cache dtype that rounds", \
    "CachesTheRotatedKAndV", "",                                                                             \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(kv_truncated_toward_zero, "KV-cache write: each code truncated toward zero (a conversion that drops the " \
    "low bits) where the conversion rounds to nearest even, in every cache dtype that rounds",               \
    "CachesTheRotatedKAndV", "",                                                                             \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(kv_e5m2_not_saturated, "KV-cache write: declares __NV_SATFINITE but converts e5m2 without it, so a value " \
    "past 57344 becomes infinity", "CachesTheRotatedKAndV", "",                                              \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(kv_write_skipped_above_4096, "KV-cache write skipped on calls of more than 4096 tokens (a large-prefill " \
    "path that forgets the cache; q and k still rotated)", "CachesTheRotatedKAndV", "",                      \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(kv_write_sniffs_cache, "KV-cache write made only when the caches arrive holding something other than "   \
    "zeros (the harness's random fill recognised; a production cache's fresh zeroed pages left unwritten)",  \
    "CachesTheRotatedKAndV", "",                                                                             \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(mla_k_pe_unscaled_caller_cache, "MLA with the caller's cos/sin cache (as vLLM's "                        \
    "concat_and_cache_mla_rope_fused takes it): k_pe written into the latent cache without its scale, kv_c with it", \
    "CachesTheRotatedKAndV", "",                                                                             \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(qk_norm_after_rotation, "qk-norm: the heads rotated first and normalised after (a fusion across the "    \
    "norm: tenstorrent/tt-mlir PR #9042)", "NormalisesEachHeadThenRotates", "",                              \
    "QkNorm", "tenstorrent/tt-mlir PR #9042", kNotShownQkNorm)                                               \
  X(qk_norm_weight_form_swapped, "qk-norm: Gemma's 1 + w applied as w, and w as 1 + w",                      \
    "NormalisesEachHeadThenRotates", "",                                                                     \
    "QkNorm", "", kNotShownQkNorm)                                                                           \
  X(qk_norm_eps_dropped, "qk-norm: eps never added, rsqrt of the bare mean square",                          \
    "NormalisesEachHeadThenRotates", "",                                                                     \
    "QkNorm", "", kNotShownQkNorm)                                                                           \
  X(qk_norm_statistic_over_rotary, "qk-norm: the mean square over the rotary channels only (partial rotary)", \
    "NormalisesEachHeadThenRotates", "",                                                                     \
    "QkNorm", "", kNotShownQkNorm)                                                                           \
  X(qk_norm_intermediate_in_bf16, "qk-norm: the normalised value rounded to bf16 where fp32 is declared",    \
    "NormalisesEachHeadThenRotates", "",                                                                     \
    "QkNorm", "", kNotShownQkNorm)                                                                           \
  X(qk_norm_layout_hard_coded, "qk-norm: the fused path rotates NeoX (half_split) pairs whatever the layout " \
    "(SGLang PR #30342, vLLM #49290)", "NormalisesEachHeadThenRotates", "",                                  \
    "Pairing", "SGLang PR #30342, vLLM #49290", kNotShownQkNorm)                                             \
  X(qk_norm_q_weight_for_k, "qk-norm: k normalised with q's weight", "NormalisesEachHeadThenRotates", "",    \
    "QkNorm", "", kNotShownQkNorm)                                                                           \
  X(mla_rope_half_the_dims, "MLA: only half of k_pe's and q_pe's rope channels rotated (a partial rotary "   \
    "factor of 0.5 applied to qk_rope_head_dim: vLLM PR #41185)", "ConformsToReference|CachesTheRotatedKAndV", "", \
    "KvCacheWrite", "vLLM PR #41185", "")                                                                    \
  X(mla_latent_rotated, "MLA: the latent kv_c's first channels rotated with k_pe's angles (the nope part "   \
    "rotated)", "CachesTheRotatedKAndV", "",                                                                 \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(mla_entry_order_swapped, "MLA: the entry written [k_pe | kv_c] where the cache is [kv_c | k_pe]",        \
    "CachesTheRotatedKAndV", "",                                                                             \
    "KvCacheWrite", "", kNotShownCache)                                                                      \
  X(cos_sin_cache_downcast, "caller's cos/sin cache: an fp32 cache rounded to the query dtype before use "   \
    "(SGLang PR #33117: MRotaryEmbedding's _match_cos_sin_cache_dtype)", "ConformsToReference", "",          \
    "TrigPrecision", "SGLang PR #33117", kNotShownCallerCache)                                               \
  X(cos_sin_cache_downcast_in_place, "caller's cos/sin cache: an fp32 cache rounded to the query dtype in "  \
    "place, the caller's buffer written (SGLang PR #33117, PR #29729's review)", "ConformsToReference", "",  \
    "TrigPrecision", "SGLang PR #33117", kNotShownCallerCache)                                               \
  X(cos_sin_cache_halves_swapped, "caller's cos/sin cache: each row read as sin | cos", "ConformsToReference", \
    "",                                                                                                      \
    "Direction", "", kNotShownCallerCache)                                                                   \
  X(cos_sin_cache_row_of_token, "caller's cos/sin cache: the row of the token index, not of its position (a " \
    "chunked prefill's offset dropped at the lookup)", "ConformsToReference", "",                            \
    "Positions", "", kNotShownCallerCache)                                                                   \
  X(quant_scale_divided, "quantized output: x / scale where the table declares x * scale (FlashInfer's "     \
    "quant_scale read as vLLM's dequantization scale)", "QuantizesTheRotatedQ", "",                          \
    "QuantizedOutput", "", kNotShownQuant)                                                                   \
  X(quant_before_rotation, "quantized output: q and k scaled and cast to fp8 before the rotation, which then " \
    "runs on the fp8 values", "QuantizesTheRotatedQ", "",                                                    \
    "QuantizedOutput", "", kNotShownQuant)                                                                   \
  X(quant_formats_swapped, "quantized output: e5m2's bits written where e4m3fn is asked, and e4m3fn's "      \
    "where e5m2 is", "QuantizesTheRotatedQ", "",                                                             \
    "QuantizedOutput", "", kNotShownQuant)

#define ROPECHECK_MUTANT_ENUM(name, text, props, suite, bug_class, published, not_shown) name,
enum class Bug { ROPECHECK_MUTANTS(ROPECHECK_MUTANT_ENUM) };
#undef ROPECHECK_MUTANT_ENUM

struct BugInfo {
  Bug bug;
  const char* name;  // plugin and implementation name: mutant_<bug>
  const char* description;
  const char* must_fail;  // properties, '|'-separated
  const char* suite;      // "" (quick) or the suite whose cases can show the bug
  const char* bug_class;  // golden/catalog/bug_classes.h's name of its class ("" for the control)
  const char* published_bug;  // the tracker entry its description cites, "" when it cites none
  // "" when a plain golden case can show the bug, else why none can (a
  // plain case is one sequence, in place, with q and k, its whole cos/sin
  // cache and no cache write or qk-norm): golden export does not run the
  // row there. A row granting the KV-cache write, the qk-norm or the
  // caller's cos/sin cache runs on every fused case with that part
  // (golden/suites/fused_suites.h) whatever this says
  // (golden/outputs/outputs.h, rows_granting).
  const char* not_shown;
};

#define ROPECHECK_MUTANT_INFO(n, text, props, suite, bug_class, published, not_shown) \
  {Bug::n, "mutant_" #n, text, props, suite, bug_class, published, not_shown},
inline constexpr BugInfo kBugs[] = {ROPECHECK_MUTANTS(ROPECHECK_MUTANT_INFO)};
#undef ROPECHECK_MUTANT_INFO

constexpr const BugInfo& bug_info(Bug b) { return kBugs[static_cast<int>(b)]; }

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_MUTANT_LIST_H_
