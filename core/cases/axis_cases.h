// SPDX-License-Identifier: MIT
// The multi-axis case families (ABI 1.3; issue #20): a drawn 1D case turned
// into one whose tokens carry a position per axis. One family per form in
// use, so every suite reaches each:
//   mrope_sections     Qwen2-VL M-RoPE: 3 axes (t, h, w) in consecutive
//                      sections (mrope_section 16/24/24 of 64 pairs, or a
//                      random split), shared frequencies
//   mrope_interleaved  Qwen3-VL: 3 axes round robin (24/20/20 of 64)
//   mrope_text         text tokens of a multi-axis model: every axis equal
//                      (must reduce to 1D RoPE exactly)
//   axial_2d           vision encoders: row and column halves, each axis
//                      restarting the frequencies (Qwen2-VL's ViT)
//   axes_3d            video and image diffusion transformers: 3 axes with
//                      per-axis frequencies (FLUX axes_dim 16/56/56)
//   axes_table         an explicit per-pair axis table over 2-4 axes
#ifndef ROPECHECK_CORE_CASES_AXIS_CASES_H_
#define ROPECHECK_CORE_CASES_AXIS_CASES_H_

#include <string>

#include "core/cases/cases.h"

namespace ropecheck {

// Case index % kMultiAxisEvery == kMultiAxisEvery - 1 of a suite is
// multi-axis, past the first kSizeClassCount * 4 (the size-class cycle):
// 12 of the quick suite's 120 cases, two per family.
inline constexpr int kMultiAxisEvery = 8;
inline constexpr int kAxisFamilyCount = 6;
constexpr bool is_multi_axis_index(int index) {
  return index >= kSizeClassCount * 4 && index % kMultiAxisEvery == kMultiAxisEvery - 1;
}
// The family of multi-axis case `index`, in the order above from the first
// (31): a short run (--cases 40) has the shared-frequency families a cache
// kernel can take.
constexpr int multi_axis_family_of(int index) {
  return (index / kMultiAxisEvery - kSizeClassCount * 4 / kMultiAxisEvery) % kAxisFamilyCount;
}

// Turns c (1D, any size class) into a case of family `which %
// kAxisFamilyCount`: axis 0 keeps c's positions, the other axes get grid
// coordinates, copies of axis 0 (text tokens) or independent ids; per-axis
// frequency families use the default scheme (or linear) on c's base.
void make_multi_axis(Choices& rng, int which, Case* c);

// Turns a multi-axis case back into 1D RoPE at its axis-0 (temporal) ids.
void keep_first_axis(Case* c);

// A 1D case c (positions one per token) given `axes`: axis 0 keeps c's
// positions, the others get grid coordinates or copies of axis 0 (text
// tokens), drawn from the case's data seed. A 1D `axes` leaves c 1D.
// How the gate runs a model config's M-RoPE (core/config/config.h, RopeConfig::axes).
void use_axes(const ref::AxisSpec& axes, Case* c);

// The positions of c's axes (c->axes set, c->positions one per token):
// every axis of a text token (all of them when `text`) equals axis 0.
void draw_axis_positions(Choices& rng, bool text, Case* c);

// The family a multi-axis case belongs to (the names above), from its axes
// and positions.
std::string axis_family_name(const Case& c);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_AXIS_CASES_H_
