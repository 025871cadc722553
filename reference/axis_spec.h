// SPDX-License-Identifier: MIT
// Multi-axis RoPE as C++ values (ABI 1.3): how many position axes a case
// has, how its pairs are assigned to them and which frequencies they use;
// its validation, and the per-pair tables the reference, the error model and
// the kernels' tests read. The assignments themselves are defined once, in
// ropecheck/axes.h.
#ifndef ROPECHECK_REFERENCE_AXIS_SPEC_H_
#define ROPECHECK_REFERENCE_AXIS_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "reference/freq_spec.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::ref {

struct AxisSpec {
  int num_axes = 0;  // 0: one position per token (1D RoPE)
  ropecheck_axis_assignment_t assignment = ROPECHECK_AXES_SECTIONS;
  ropecheck_axis_frequencies_t frequencies = ROPECHECK_AXIS_FREQ_SHARED;
  std::vector<std::int32_t> sections;  // SECTIONS, INTERLEAVED: pairs per axis
  std::vector<std::int32_t> table;     // TABLE: the axis of every pair

  bool multi() const { return num_axes > 0; }
  // Positions per token: num_axes, or 1 for 1D.
  int axis_count() const { return num_axes > 0 ? num_axes : 1; }
  // "mrope(sections=16/24/24)", "interleaved(24/20/20,per-axis freqs)", "1d".
  std::string describe() const;
  bool operator==(const AxisSpec&) const = default;
};

// Throws ConfigError naming the field and bound: the assignment must be
// valid for rotary_dim/2 pairs (ropecheck/axes.h, axes_error), and per-axis
// frequencies are defined for the default and linear schemes only (every
// axis restarts the scheme's formula at its own rotary dim; the scaling
// schemes' parameters are tied to one rotary dim).
void validate_axes(const AxisSpec& axes, const FreqSpec& spec, const HeadShape& shape);

// Per pair of a validated spec: its axis, its frequency group (0 for shared
// frequencies and 1D; the axis for per-axis frequencies) and its index in
// that group's frequencies; and per group the rotary dim its frequencies
// are computed over (rotary_dim, or twice the axis's pair count).
struct PairAxes {
  std::vector<int> axis, group, index;
  std::vector<int> group_rotary_dim;
};
PairAxes pair_axes(const AxisSpec& axes, int rotary_dim);

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_AXIS_SPEC_H_
