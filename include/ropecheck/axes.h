// SPDX-License-Identifier: MIT
// Multi-axis RoPE (ABI 1.3): which position axis rotates pair i, the pair's
// index within its axis, and what a valid assignment is. The single
// definition of the assignments, used by the reference, every kernel and the
// gate. Header-only; the per-pair functions run on the device too.
//
// Sources of the forms: Qwen2-VL's M-RoPE splits the pairs into consecutive
// sections of sizes mrope_section (t, h, w) (Wang et al. 2024, "Qwen2-VL",
// arXiv:2409.12191, section 2.1; transformers modeling_qwen2_vl.py,
// apply_multimodal_rotary_pos_emb); Qwen3-VL interleaves them, pair i on
// axis i % 3 within the first 3 * mrope_section[axis] pairs
// (transformers modeling_qwen3_vl.py, apply_interleaved_mrope); axial vision
// RoPE and FLUX restart the frequencies per axis (Qwen2-VL's
// VisionRotaryEmbedding over head_dim/2; Black Forest Labs flux, EmbedND
// over axes_dim).
#ifndef ROPECHECK_AXES_H_
#define ROPECHECK_AXES_H_

#include <cstdint>
#include <string>

#include "ropecheck/dtype.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The caps flag granting an assignment, and all of them.
constexpr std::uint32_t axis_assignment_cap(unsigned assignment) {
  return assignment == ROPECHECK_AXES_SECTIONS      ? ROPECHECK_CAP_AXES_SECTIONS
         : assignment == ROPECHECK_AXES_INTERLEAVED ? ROPECHECK_CAP_AXES_INTERLEAVED
                                                    : ROPECHECK_CAP_AXES_TABLE;
}
inline constexpr std::uint32_t kAxisAssignmentCaps =
    ROPECHECK_CAP_AXES_SECTIONS | ROPECHECK_CAP_AXES_INTERLEAVED | ROPECHECK_CAP_AXES_TABLE;

// The axis of pair i (of a validated assignment).
ROPECHECK_HD inline int pair_axis_of(unsigned assignment, int num_axes, const std::int32_t* sections,
                                     const std::int32_t* table, int i) {
  if (assignment == ROPECHECK_AXES_TABLE) return table[i];
  if (assignment == ROPECHECK_AXES_INTERLEAVED) {
    const int r = i % num_axes;
    return r != 0 && i < num_axes * sections[r] ? r : 0;
  }
  int end = 0;
  for (int a = 0; a < num_axes; ++a) {
    end += sections[a];
    if (i < end) return a;
  }
  return num_axes - 1;  // not reached when the sections sum to the pair count
}

// The index of pair i among the pairs of its own axis (how many earlier
// pairs share its axis): the frequency index of ROPECHECK_AXIS_FREQ_PER_AXIS.
ROPECHECK_HD inline int pair_index_in_axis(unsigned assignment, int num_axes, const std::int32_t* sections,
                                           const std::int32_t* table, int i) {
  const int axis = pair_axis_of(assignment, num_axes, sections, table, i);
  int j = 0;
  for (int k = 0; k < i; ++k) j += pair_axis_of(assignment, num_axes, sections, table, k) == axis;
  return j;
}

// Why an assignment of `pairs` pairs to `num_axes` axes is invalid, naming
// the field and the bound; empty when valid. Every axis's pair count (what
// per-axis frequencies take as half the rotary dim) follows from it.
inline std::string axes_error(int pairs, int num_axes, unsigned assignment, const std::int32_t* sections,
                              const std::int32_t* table) {
  if (num_axes < 1 || num_axes > ROPECHECK_MAX_AXES)
    return "num_axes: must be in [1, " + std::to_string(ROPECHECK_MAX_AXES) + "] (got " + std::to_string(num_axes) + ")";
  if (assignment >= ROPECHECK_AXES_COUNT)
    return "axis_assignment: must be SECTIONS, INTERLEAVED or TABLE (got " + std::to_string(assignment) + ")";
  if (assignment == ROPECHECK_AXES_TABLE) {
    if (pairs > 0 && !table) return "pair_axis: null with rotary_dim/2 = " + std::to_string(pairs) + " pairs";
    for (int i = 0; i < pairs; ++i)
      if (table[i] < 0 || table[i] >= num_axes)
        return "pair_axis[" + std::to_string(i) + "]: must be in [0, num_axes = " + std::to_string(num_axes) +
               ") (got " + std::to_string(table[i]) + ")";
    return {};
  }
  if (!sections) return "axis_sections: null with num_axes = " + std::to_string(num_axes);
  long long sum = 0;
  for (int a = 0; a < num_axes; ++a) {
    if (sections[a] < 0 || sections[a] > pairs)
      return "axis_sections[" + std::to_string(a) + "]: must be in [0, rotary_dim/2 = " + std::to_string(pairs) +
             "] (got " + std::to_string(sections[a]) + ")";
    sum += sections[a];
  }
  if (sum != pairs)
    return "axis_sections: must sum to rotary_dim/2 = " + std::to_string(pairs) + " (got " + std::to_string(sum) + ")";
  if (assignment == ROPECHECK_AXES_INTERLEAVED) {
    // Round robin gives axis r > 0 the pairs r, r + n, ... below n * sections[r]:
    // exactly sections[r] of them only while n * sections[r] - (n - r) < pairs.
    for (int a = 1; a < num_axes; ++a)
      if (sections[a] > 0 && static_cast<long long>(num_axes) * sections[a] - (num_axes - a) >= pairs)
        return "axis_sections[" + std::to_string(a) + "]: " + std::to_string(sections[a]) +
               " interleaved pairs do not fit in rotary_dim/2 = " + std::to_string(pairs) + " (round robin over " +
               std::to_string(num_axes) + " axes needs num_axes * sections[a] - (num_axes - a) < rotary_dim/2)";
  }
  return {};
}

// Pair counts per axis of a validated assignment.
inline void axis_pair_counts(int pairs, int num_axes, unsigned assignment, const std::int32_t* sections,
                             const std::int32_t* table, int* counts) {
  for (int a = 0; a < num_axes; ++a) counts[a] = 0;
  for (int i = 0; i < pairs; ++i) ++counts[pair_axis_of(assignment, num_axes, sections, table, i)];
}

}  // namespace ropecheck

#endif  // ROPECHECK_AXES_H_
