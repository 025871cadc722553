// SPDX-License-Identifier: MIT
// The multi-axis case families: a drawn 1D case given a position per axis, one family per form.
#include "core/cases/axis_cases.h"

#include <algorithm>
#include <vector>

#include "ropecheck/axes.h"

namespace ropecheck {
namespace {

// Pair counts in the proportions a model publishes, the rest to the last
// axes: Qwen2-VL 16/24/24 of 64, Qwen3-VL 24/20/20, FLUX 8/28/28.
std::vector<std::int32_t> proportional(int pairs, std::vector<int> parts) {
  int total = 0;
  for (int p : parts) total += p;
  std::vector<std::int32_t> s;
  int used = 0;
  for (int p : parts) {
    s.push_back(pairs * p / total);
    used += s.back();
  }
  for (std::size_t a = s.size(); used < pairs; a = a == 1 ? s.size() : a - 1, ++used) ++s[a - 1];
  return s;
}

std::vector<std::int32_t> random_split(Choices& rng, int pairs, int axes) {
  std::vector<std::int32_t> s(static_cast<std::size_t>(axes), 0);
  for (int i = 0; i < pairs; ++i) ++s[rng.below(static_cast<std::uint64_t>(axes))];
  return s;
}

// Interleaved sections that fit round robin (ropecheck/axes.h): axis r > 0
// takes at most (pairs - 1 + n - r) / n pairs.
std::vector<std::int32_t> interleaved_sections(Choices& rng, int pairs) {
  const int n = 3;
  std::vector<std::int32_t> s(n, 0);
  const bool qwen = rng.chance(0.5);
  int rest = pairs;
  for (int r = 1; r < n; ++r) {
    const int most = std::max(0, (pairs - 1 + n - r) / n);
    s[r] = qwen ? std::min(most, pairs * 20 / 64) : static_cast<std::int32_t>(rng.range(0, most));
    rest -= s[r];
  }
  s[0] = rest;
  return s;
}

// The position of a non-temporal axis for a token at position p.
std::int64_t other_axis(Choices& rng, std::int64_t p) {
  const double u = rng.uniform();
  if (u < 0.5) return rng.range(0, std::int64_t{1} << rng.range(2, 10));  // a grid coordinate
  if (u < 0.7) return p;                                                   // a text token
  return rng.range(0, p >= 0 ? p : -p);
}

}  // namespace

void make_multi_axis(Choices& rng, int which, Case* c) {
  // Partial rotary with multi-axis positions (GLM-4V: M-RoPE on half the
  // head, partial_rotary_factor 0.5) where the case rotates the whole head.
  if (c->shape.rotary_dim == c->shape.head_dim && c->shape.head_dim >= 8 && rng.chance(0.4)) {
    c->shape.rotary_dim = c->shape.head_dim / 2 & ~1;
    c->freq = draw_scheme(rng, c->shape.rotary_dim, c->freq.scheme);
  }
  const int pairs = c->shape.rotary_dim / 2;
  ref::AxisSpec& a = c->axes;
  a = ref::AxisSpec{};
  bool text = false;
  switch (which % kAxisFamilyCount) {
    case 0:  // mrope_sections
      a.num_axes = 3;
      a.sections = rng.chance(0.5) ? proportional(pairs, {16, 24, 24}) : random_split(rng, pairs, 3);
      break;
    case 1:  // mrope_interleaved
      a.num_axes = 3;
      a.assignment = ROPECHECK_AXES_INTERLEAVED;
      a.sections = interleaved_sections(rng, pairs);
      break;
    case 2:  // mrope_text
      a.num_axes = 3;
      a.sections = proportional(pairs, {16, 24, 24});
      if (rng.chance(0.5)) {
        a.assignment = ROPECHECK_AXES_INTERLEAVED;
        a.sections = interleaved_sections(rng, pairs);
      }
      text = true;
      break;
    case 3:  // axial_2d
      a.num_axes = 2;
      a.sections = rng.chance(0.7) ? proportional(pairs, {1, 1}) : random_split(rng, pairs, 2);
      a.frequencies = ROPECHECK_AXIS_FREQ_PER_AXIS;
      break;
    case 4:  // axes_3d
      a.num_axes = 3;
      a.sections = rng.chance(0.6) ? proportional(pairs, {16, 56, 56}) : random_split(rng, pairs, 3);
      a.frequencies = ROPECHECK_AXIS_FREQ_PER_AXIS;
      break;
    default:  // axes_table
      a.num_axes = static_cast<int>(rng.range(2, 4));
      a.assignment = ROPECHECK_AXES_TABLE;
      for (int i = 0; i < pairs; ++i) a.table.push_back(static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(a.num_axes))));
      if (c->freq.scheme == ROPECHECK_SCHEME_DEFAULT || c->freq.scheme == ROPECHECK_SCHEME_LINEAR)
        a.frequencies = rng.chance(0.5) ? ROPECHECK_AXIS_FREQ_PER_AXIS : ROPECHECK_AXIS_FREQ_SHARED;
      break;
  }
  // Per-axis frequencies restart the formula per axis: default or linear only.
  if (a.frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS && c->freq.scheme != ROPECHECK_SCHEME_DEFAULT &&
      c->freq.scheme != ROPECHECK_SCHEME_LINEAR) {
    const double base = c->freq.base;
    c->freq = draw_scheme(rng, c->shape.rotary_dim, rng.chance(0.8) ? ROPECHECK_SCHEME_DEFAULT : ROPECHECK_SCHEME_LINEAR);
    c->freq.base = base;
  }
  draw_axis_positions(rng, text, c);
}

void draw_axis_positions(Choices& rng, bool text, Case* c) {
  const int axes = c->axes.num_axes;
  std::vector<std::int64_t> pos;
  pos.reserve(static_cast<std::size_t>(c->tokens * axes));
  for (std::int64_t t = 0; t < c->tokens; ++t) {
    const std::int64_t p = c->positions[static_cast<std::size_t>(t)];
    const bool text_token = text || rng.chance(0.2);
    pos.push_back(p);
    for (int k = 1; k < axes; ++k) pos.push_back(text_token ? p : other_axis(rng, p));
  }
  c->positions = std::move(pos);
  c->axis_pad = rng.chance(0.5) ? static_cast<int>(rng.range(1, 5)) : 0;
}

void use_axes(const ref::AxisSpec& axes, Case* c) {
  keep_first_axis(c);
  if (!axes.multi()) return;
  c->axes = axes;
  Rng rng(c->data_seed, 0x61786573ULL);  // "axes"
  draw_axis_positions(rng, false, c);
}

void keep_first_axis(Case* c) {
  if (!c->axes.multi()) return;
  std::vector<std::int64_t> first;
  for (std::int64_t t = 0; t < c->tokens; ++t) first.push_back(c->position(t, 0));
  c->positions = std::move(first);
  c->axes = ref::AxisSpec{};
  c->axis_pad = 0;
}

std::string axis_family_name(const Case& c) {
  const ref::AxisSpec& a = c.axes;
  if (a.assignment == ROPECHECK_AXES_TABLE) return "axes_table";
  if (a.frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS) return a.num_axes == 2 ? "axial_2d" : "axes_3d";
  bool equal = true;
  for (std::int64_t t = 0; t < c.tokens && equal; ++t)
    for (int k = 1; k < a.num_axes; ++k) equal &= c.position(t, k) == c.position(t, 0);
  if (equal) return "mrope_text";
  return a.assignment == ROPECHECK_AXES_INTERLEAVED ? "mrope_interleaved" : "mrope_sections";
}

}  // namespace ropecheck
