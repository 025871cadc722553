// SPDX-License-Identifier: MIT
#include "golden/catalog/bug_classes.h"

namespace ropecheck::golden {
namespace {

constexpr BugClassInfo kClasses[] = {
    {"Pairing", "channels paired wrongly: the other layout's pairs (on every call, or on one code path chosen by "
                "position or head size), or half-split partners taken across head_dim/2 under partial rotary"},
    {"Direction", "the rotation by the opposite angle"},
    {"FrequencyFormula", "w_i = b^(-2i/d) with the wrong d: head_dim for rotary_dim, or a denominator one pair off"},
    {"ScalingFormula",
     "a frequency scaling scheme misread: YaRN's ramp or correction bounds, Llama 3.1's bands, dynamic NTK as "
     "static, LongRoPE's factor list"},
    {"AttentionFactor", "the attention factor (YaRN mscale, an explicit attention_factor) missing, applied twice, "
                        "ignored for another, or applied to channels it must not touch"},
    {"Unrotated", "elements left as they were: a loop bound one pair short, the pairs past a vector width, the rows "
                  "past the last full block, or k passed through"},
    {"AnglePrecision", "the angle p * w_i formed in less precision than declared: rounded to bf16 or fp16, fp32 "
                       "positions, a running product"},
    {"TrigPrecision", "cos/sin in less precision than declared: rounded to bf16 or the activation dtype, a fast "
                      "sin/cos past its range"},
    {"RotationRounding", "the rotation x cos - y sin rounded more often than declared (every op in the activation "
                         "dtype declared as fp32 math, a fused product rounded first)"},
    {"Positions", "the wrong position per token: the cache or chunk offset ignored, one sequence's position for "
                  "every sequence of a batch"},
    {"Addressing", "memory addressed wrongly: a stride taken from the other tensor or ignored, writes past a view, "
                   "reads past the cos/sin cache"},
    {"MultiAxis", "a multi-axis call's pairs given the wrong axis or frequencies: one axis for every pair, sections "
                  "reversed, interleaved read as sections, per-axis frequencies shared, the axis stride ignored"},
    {"KvCacheWrite", "a fused KV-cache write gone wrong: the wrong slot, scale or entry layout, or the unrotated k "
                     "cached"},
    {"QkNorm", "a fused per-head qk-norm gone wrong: applied after the rotation, the wrong weight form, eps or "
               "statistic"},
};

// Why no golden case can show a row's bug.
constexpr const char* kOnlyShortCache =
    "reads past the cos/sin cache only when handed one a row short (RefusesPositionsBeyondTheCache)";
constexpr const char* kOnlyBatches = "shows only on a batch of several sequences";
constexpr const char* kInBudget = "in budget by design: only its bits' dependence on the batch shows (IsBatchInvariant)";
constexpr const char* kOnlyWithoutK = "shows only on a call without k (RotatesQTheSameWithoutK)";
constexpr const char* kOnlyOutOfPlace = "shows only out of place (WritesOnlyItsViews)";
constexpr const char* kOnlyCache = "wrong only in the KV cache it writes";
constexpr const char* kOnlyQkNorm = "wrong only in a call fused with a qk-norm";
constexpr const char* kOnlyCallerCache = "wrong only with a cos/sin cache the caller passes in (ABI 1.6)";
constexpr const char* kCrashes = "under GQA it writes past k's end: a crash (isolation names it), not an output";

// Every row of mutants/mutant_list.h but the control, in its order.
constexpr MutantClass kMutants[] = {
    {"mutant_layout_swapped", "Pairing", ""},
    {"mutant_direction_flipped", "Direction", ""},
    {"mutant_exponent_over_head_dim", "FrequencyFormula", ""},
    {"mutant_exponent_off_by_one", "FrequencyFormula", ""},
    {"mutant_last_pair_unrotated", "Unrotated", ""},
    {"mutant_pass_through_scaled", "AttentionFactor", ""},
    {"mutant_angle_in_bf16", "AnglePrecision", ""},
    {"mutant_angle_in_fp16", "AnglePrecision", ""},
    {"mutant_cos_sin_in_bf16", "TrigPrecision", ""},
    {"mutant_running_product_angles", "AnglePrecision", ""},
    {"mutant_fast_sincos_no_range_reduction", "TrigPrecision", ""},
    {"mutant_yarn_attention_factor_missing", "AttentionFactor", ""},
    {"mutant_yarn_attention_factor_twice", "AttentionFactor", ""},
    {"mutant_yarn_explicit_factor_ignored", "AttentionFactor", ""},
    {"mutant_yarn_truncate_ignored", "ScalingFormula", ""},
    {"mutant_yarn_ramp_reversed", "ScalingFormula", ""},
    {"mutant_llama31_factors_swapped", "ScalingFormula", ""},
    {"mutant_dynamic_ntk_constant", "ScalingFormula", ""},
    {"mutant_longrope_never_switching", "ScalingFormula", ""},
    {"mutant_position_offset_ignored", "Positions", "transformers #43082"},
    {"mutant_k_rotated_with_q_heads", "Addressing", "", kCrashes},
    {"mutant_cache_no_bounds_check", "Addressing", "", kOnlyShortCache},
    {"mutant_layout_swapped_above_4096", "Pairing", ""},
    {"mutant_layout_swapped_head_dim_192", "Pairing", ""},
    {"mutant_hf_eager_math_declared_f32", "RotationRounding", ""},
    {"mutant_hf_eager_cos_sin_cast_undeclared", "TrigPrecision", ""},
    {"mutant_fma_storage_product_rounded", "RotationRounding", ""},
    {"mutant_cuda_powf_cos_sin_cast_undeclared", "TrigPrecision", ""},
    {"mutant_ggml_declared_per_pair_product", "AnglePrecision", ""},
    {"mutant_ggml_long_factors_fixed", "ScalingFormula", ""},
    {"mutant_ggml_yarn_ramp_channel_index", "ScalingFormula", ""},
    {"mutant_ggml_running_product_bf16", "AnglePrecision", ""},
    {"mutant_fast_sincos_past_range", "TrigPrecision", ""},
    {"mutant_fp32_positions_undeclared", "AnglePrecision", ""},
    {"mutant_flushed_subnormals_undeclared", "RotationRounding", ""},
    {"mutant_exp_log_declared_power", "AnglePrecision", ""},
    {"mutant_formula_declared_table", "AnglePrecision", ""},
    {"mutant_yarn_truncation_dropped", "ScalingFormula", ""},
    {"mutant_attention_factor_dropped_no_explicit", "AttentionFactor", ""},
    {"mutant_k_head_stride_from_q", "Addressing", "SGLang #20559"},
    {"mutant_seq_stride_ignored", "Addressing", "", kOnlyBatches},
    {"mutant_decode_first_row_position", "Positions", "MLX #3494", kOnlyBatches},
    {"mutant_batch_positions_ignored", "Positions", "Liger-Kernel PR #477", kOnlyBatches},
    {"mutant_k_unrotated_single_kv_head", "Unrotated", "Liger-Kernel #342"},
    {"mutant_tail_pairs_unrotated", "Unrotated", ""},
    {"mutant_partition_drops_tail_rows", "Unrotated", ""},
    {"mutant_fma_when_many_tokens", "RotationRounding", "", kInBudget},
    {"mutant_fma_when_q_alone", "RotationRounding", "", kOnlyWithoutK},
    {"mutant_clears_output_span", "Addressing", "", kOnlyOutOfPlace},
    {"mutant_mrope_layout_hard_coded", "Pairing", "vLLM #49290"},
    {"mutant_mrope_temporal_only", "MultiAxis", "SGLang #35345"},
    {"mutant_mrope_sections_reversed", "MultiAxis", ""},
    {"mutant_mrope_interleaved_as_sections", "MultiAxis", ""},
    {"mutant_mrope_partial_over_head_dim", "Pairing", "MaxText #4616"},
    {"mutant_axis_frequencies_shared", "MultiAxis", ""},
    {"mutant_axis_stride_ignored", "MultiAxis", ""},
    {"mutant_kv_padding_writes_last_slot", "KvCacheWrite", "vLLM #43810", kOnlyCache},
    {"mutant_kv_scales_swapped", "KvCacheWrite", "SGLang PR #26852", kOnlyCache},
    {"mutant_kv_scale_direction_flipped", "KvCacheWrite", "", kOnlyCache},
    {"mutant_kv_scale_ignored", "KvCacheWrite", "vLLM PR #34863", kOnlyCache},
    {"mutant_kv_pass_through_not_cached", "KvCacheWrite", "SGLang PR #22868", kOnlyCache},
    {"mutant_kv_unrotated_k_cached", "KvCacheWrite", "", kOnlyCache},
    {"mutant_kv_contiguous_prefill_slots", "KvCacheWrite", "", kOnlyCache},
    {"mutant_kv_padding_skips_rotation", "KvCacheWrite", "vLLM's concat_and_cache_mla_rope_fused"},
    {"mutant_kv_ties_away_from_zero", "KvCacheWrite", "", kOnlyCache},
    {"mutant_kv_truncated_toward_zero", "KvCacheWrite", "", kOnlyCache},
    {"mutant_kv_e5m2_not_saturated", "KvCacheWrite", "", kOnlyCache},
    {"mutant_kv_write_skipped_above_4096", "KvCacheWrite", "", kOnlyCache},
    {"mutant_kv_write_sniffs_cache", "KvCacheWrite", "", kOnlyCache},
    {"mutant_mla_k_pe_unscaled_caller_cache", "KvCacheWrite", "", kOnlyCache},
    {"mutant_qk_norm_after_rotation", "QkNorm", "tenstorrent/tt-mlir PR #9042", kOnlyQkNorm},
    {"mutant_qk_norm_weight_form_swapped", "QkNorm", "", kOnlyQkNorm},
    {"mutant_qk_norm_eps_dropped", "QkNorm", "", kOnlyQkNorm},
    {"mutant_qk_norm_statistic_over_rotary", "QkNorm", "", kOnlyQkNorm},
    {"mutant_qk_norm_intermediate_in_bf16", "QkNorm", "", kOnlyQkNorm},
    {"mutant_qk_norm_layout_hard_coded", "Pairing", "SGLang PR #30342, vLLM #49290", kOnlyQkNorm},
    {"mutant_qk_norm_q_weight_for_k", "QkNorm", "", kOnlyQkNorm},
    {"mutant_mla_rope_half_the_dims", "KvCacheWrite", "vLLM PR #41185"},
    {"mutant_mla_latent_rotated", "KvCacheWrite", "", kOnlyCache},
    {"mutant_mla_entry_order_swapped", "KvCacheWrite", "", kOnlyCache},
    {"mutant_cos_sin_cache_downcast", "TrigPrecision", "SGLang PR #33117", kOnlyCallerCache},
    {"mutant_cos_sin_cache_downcast_in_place", "TrigPrecision", "SGLang PR #33117", kOnlyCallerCache},
    {"mutant_cos_sin_cache_halves_swapped", "Direction", "", kOnlyCallerCache},
    {"mutant_cos_sin_cache_row_of_token", "Positions", "", kOnlyCallerCache},
};

}  // namespace

std::span<const BugClassInfo> bug_class_catalog() { return kClasses; }

const BugClassInfo* find_bug_class(std::string_view name) {
  for (const auto& c : kClasses)
    if (name == c.name) return &c;
  return nullptr;
}

std::span<const MutantClass> mutant_classes() { return kMutants; }

const MutantClass* find_mutant_class(std::string_view mutant) {
  for (const auto& m : kMutants)
    if (mutant == m.mutant) return &m;
  return nullptr;
}

}  // namespace ropecheck::golden
