// SPDX-License-Identifier: MIT
// The kernel properties, in report order. Adding one is one row here.
#include "properties/property.h"

#include <string>

#include "properties/fused_forms.h"
#include "ropecheck/axes.h"

namespace ropecheck::prop {

// One file per property, named after it.
PropertyResult conforms_to_reference(const ropecheck_impl_t&, CaseContext&);
PropertyResult is_identity_at_position_zero(const ropecheck_impl_t&, CaseContext&);
PropertyResult preserves_pair_norm(const ropecheck_impl_t&, CaseContext&);
PropertyResult depends_only_on_relative_position(const ropecheck_impl_t&, CaseContext&);
PropertyResult is_orthogonal_with_positive_orientation(const ropecheck_impl_t&, CaseContext&);
PropertyResult composes_additively(const ropecheck_impl_t&, CaseContext&);
PropertyResult inverse_undoes_forward(const ropecheck_impl_t&, CaseContext&);
PropertyResult is_layout_equivariant(const ropecheck_impl_t&, CaseContext&);
PropertyResult keeps_pass_through_bit_exact(const ropecheck_impl_t&, CaseContext&);
PropertyResult in_place_matches_out_of_place(const ropecheck_impl_t&, CaseContext&);
PropertyResult rotates_q_and_k_alike(const ropecheck_impl_t&, CaseContext&);
PropertyResult refuses_positions_beyond_the_cache(const ropecheck_impl_t&, CaseContext&);
PropertyResult is_batch_invariant(const ropecheck_impl_t&, CaseContext&);
PropertyResult rotates_q_the_same_without_k(const ropecheck_impl_t&, CaseContext&);
PropertyResult writes_only_its_views(const ropecheck_impl_t&, CaseContext&);
PropertyResult depends_only_on_per_axis_offsets(const ropecheck_impl_t&, CaseContext&);
PropertyResult is_axis_separable(const ropecheck_impl_t&, CaseContext&);
PropertyResult reduces_to_1d_when_axes_agree(const ropecheck_impl_t&, CaseContext&);
PropertyResult caches_the_rotated_k_and_v(const ropecheck_impl_t&, CaseContext&);
PropertyResult leaves_the_rest_of_the_cache_unchanged(const ropecheck_impl_t&, CaseContext&);
PropertyResult normalises_each_head_then_rotates(const ropecheck_impl_t&, CaseContext&);
PropertyResult permuting_slots_permutes_the_cache(const ropecheck_impl_t&, CaseContext&);
PropertyResult quantizes_the_rotated_q(const ropecheck_impl_t&, CaseContext&);

namespace {
constexpr std::uint32_t kAnyAxisForm = kAxisAssignmentCaps;
// A cache of the kernel's own or the caller's (ABI 1.6).
constexpr std::uint32_t kAnyCache = ROPECHECK_CAP_COS_SIN_CACHE | ROPECHECK_CAP_CALLER_COS_SIN_CACHE;
constexpr Property kProperties[] = {
    {kConformanceProperty, "every element within the budget of the declared policy", conforms_to_reference, 0, 0,
     true, 0, caller_cache_form},
    {"IsIdentityAtPositionZero", "position 0 returns the input (m = 1) or m x", is_identity_at_position_zero},
    {"PreservesPairNorm", "each pair's norm scaled exactly by the attention factor", preserves_pair_norm},
    {"DependsOnlyOnRelativePosition", "<f(q,m), f(k,n)> = <f(q,m+t), f(k,n+t)>", depends_only_on_relative_position},
    {"IsOrthogonalWithPositiveOrientation", "R^T R = m^2 I and every pair block has det > 0", is_orthogonal_with_positive_orientation},
    {"ComposesAdditively", "f(f(x,a),b) = f(x,a+b) when m = 1", composes_additively},
    {"InverseUndoesForward", "the inverse direction applied after forward gives m^2 x", inverse_undoes_forward,
     ROPECHECK_CAP_INVERSE},
    {"IsLayoutEquivariant", "interleaved(P x) = P half_split(x)", is_layout_equivariant, 0,
     (1u << ROPECHECK_LAYOUT_INTERLEAVED) | (1u << ROPECHECK_LAYOUT_HALF_SPLIT)},
    {"KeepsPassThroughBitExact", "channels [rotary_dim, head_dim) untouched", keeps_pass_through_bit_exact,
     ROPECHECK_CAP_PARTIAL_ROTARY},
    {"InPlaceMatchesOutOfPlace", "in-place and out-of-place results are bit-identical", in_place_matches_out_of_place,
     ROPECHECK_CAP_IN_PLACE | ROPECHECK_CAP_OUT_OF_PLACE},
    {"RotatesQAndKAlike", "q and k with equal data at one position agree within their budgets", rotates_q_and_k_alike},
    {"RefusesPositionsBeyondTheCache", "a position id past the cos/sin cache gives POSITION_OUT_OF_RANGE",
     refuses_positions_beyond_the_cache, 0, 0, false, kAnyCache},
    {"IsBatchInvariant", "a token's bits do not depend on its batch, the token order or the thread count",
     is_batch_invariant, ROPECHECK_CAP_BATCH_INVARIANT, 0, true},
    {"RotatesQTheSameWithoutK", "q rotated alone (no k in the call) has the bits of q rotated with k",
     rotates_q_the_same_without_k, 0, 0, true},
    {"WritesOnlyItsViews", "nothing outside the q and k views is written (padding, the v part of a fused qkv row)",
     writes_only_its_views, 0, 0, true},
    {"DependsOnlyOnPerAxisOffsets", "multi-axis: <f(q,P), f(k,P')> unchanged when each axis shifts by its own t",
     depends_only_on_per_axis_offsets, 0, 0, false, kAnyAxisForm},
    {"IsAxisSeparable", "multi-axis: moving one axis's positions leaves the other axes' pairs bit-identical",
     is_axis_separable, 0, 0, false, kAnyAxisForm},
    {"ReducesTo1dWhenAxesAgree", "multi-axis, shared frequencies: every axis at p is the 1D RoPE of p",
     reduces_to_1d_when_axes_agree, 0, 0, false, kAnyAxisForm},
    {"CachesTheRotatedKAndV",
     "KV-cache write: each token's slot holds its rotated k (pass-through too) and v, scaled and rounded as declared",
     caches_the_rotated_k_and_v, ROPECHECK_CAP_KV_CACHE_WRITE, 0, true, 0, kv_write_form, "E9, the KV-cache write"},
    {"LeavesTheRestOfTheCacheUnchanged",
     "KV-cache write: no byte outside the written slots changes (padding tokens write nothing)",
     leaves_the_rest_of_the_cache_unchanged, ROPECHECK_CAP_KV_CACHE_WRITE, 0, true},
    {"PermutingSlotsPermutesTheCache",
     "KV-cache write: the same slots handed to the tokens in another order move each entry with its slot, bit for "
     "bit, and change nothing else",
     permuting_slots_permutes_the_cache, ROPECHECK_CAP_KV_CACHE_WRITE},
    {"NormalisesEachHeadThenRotates",
     "qk-norm: every head RMS-normalised over head_dim, then rotated, within E10 carried through the rotation",
     normalises_each_head_then_rotates, ROPECHECK_CAP_QK_NORM, 0, false, 0, qk_norm_form,
     "E10 and the rotation, the fused qk-norm"},
    {"QuantizesTheRotatedQ",
     "quantized output: each code of q (and k) the rotated value scaled and rounded to fp8 as declared",
     quantizes_the_rotated_q, ROPECHECK_CAP_QUANTIZED_OUTPUT, 0, false, 0, nullptr,
     "E11 (E9's fp8 rounding), the quantized output"},
};
}  // namespace

std::span<const Property> kernel_properties() { return kProperties; }

std::string not_applicable(const Property& p, const ropecheck_impl_t& impl) {
  if ((impl.caps.flags & p.needs_flags) != p.needs_flags)
    return "needs capability flags " + std::to_string(p.needs_flags) + ", has " + std::to_string(impl.caps.flags);
  if ((impl.caps.layouts & p.needs_layouts) != p.needs_layouts) return "needs both layouts";
  if (p.needs_any_flags && !(impl.caps.flags & p.needs_any_flags))
    return p.needs_any_flags == kAnyAxisForm ? "takes one position per token"
                                             : "needs one of capability flags " + std::to_string(p.needs_any_flags);
  return {};
}

PropertyResult run_property(const Property& p, const ropecheck_impl_t& impl, CaseContext& ctx) {
  const std::int64_t n = ctx.spec().rotated_elements();
  if (!p.large_cases && n > kLargeCase)
    return PropertyResult::skip("large case (" + std::to_string(n) +
                                " rotated elements): judged by ConformsToReference, IsBatchInvariant, "
                                "RotatesQTheSameWithoutK, WritesOnlyItsViews and the KV-cache write's "
                                "CachesTheRotatedKAndV and LeavesTheRestOfTheCacheUnchanged");
  return p.check(impl, ctx);
}

const Property* find_property(std::string_view name) {
  for (const Property& p : kProperties)
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace ropecheck::prop
