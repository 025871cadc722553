// SPDX-License-Identifier: MIT
// Multi-axis RoPE as C++ values: axes, the pairs' assignment to them and their frequencies.
#include "reference/axis_spec.h"

#include <sstream>

#include "ropecheck/axes.h"
#include "ropecheck/names.h"

namespace ropecheck::ref {

std::string AxisSpec::describe() const {
  if (!multi()) return "1d";
  std::ostringstream os;
  const char* kind = assignment == ROPECHECK_AXES_INTERLEAVED ? "interleaved" : assignment == ROPECHECK_AXES_TABLE ? "table" : "sections";
  os << num_axes << "-axis " << kind << "(";
  const std::vector<std::int32_t>& v = assignment == ROPECHECK_AXES_TABLE ? table : sections;
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? "/" : "") << v[i];
  os << (frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS ? ", per-axis freqs" : "") << ")";
  return os.str();
}

void validate_axes(const AxisSpec& a, const FreqSpec& spec, const HeadShape& shape) {
  if (!a.multi()) {
    if (a.num_axes < 0) throw ConfigError("num_axes", "must be >= 0 (got " + std::to_string(a.num_axes) + ")");
    return;
  }
  const int pairs = shape.rotary_dim / 2;
  if (a.assignment != ROPECHECK_AXES_TABLE && a.sections.size() != static_cast<std::size_t>(a.num_axes))
    throw ConfigError("axis_sections", "must have num_axes = " + std::to_string(a.num_axes) + " entries (got " +
                                           std::to_string(a.sections.size()) + ")");
  if (a.assignment == ROPECHECK_AXES_TABLE && a.table.size() != static_cast<std::size_t>(pairs))
    throw ConfigError("pair_axis", "must have rotary_dim/2 = " + std::to_string(pairs) + " entries (got " +
                                       std::to_string(a.table.size()) + ")");
  const std::string why = axes_error(pairs, a.num_axes, a.assignment, a.sections.data(), a.table.data());
  if (!why.empty()) {
    const auto colon = why.find(": ");
    throw ConfigError(why.substr(0, colon), why.substr(colon + 2));
  }
  if (a.frequencies != ROPECHECK_AXIS_FREQ_SHARED && a.frequencies != ROPECHECK_AXIS_FREQ_PER_AXIS)
    throw ConfigError("axis_frequencies", "must be SHARED or PER_AXIS (got " +
                                              std::to_string(static_cast<unsigned>(a.frequencies)) + ")");
  if (a.frequencies == ROPECHECK_AXIS_FREQ_PER_AXIS && spec.scheme != ROPECHECK_SCHEME_DEFAULT &&
      spec.scheme != ROPECHECK_SCHEME_LINEAR)
    throw ConfigError("axis_frequencies", "per-axis frequencies are defined for the default and linear schemes (got " +
                                              std::string(scheme_name(spec.scheme)) + ")");
}

PairAxes pair_axes(const AxisSpec& a, int rotary_dim) {
  const int pairs = rotary_dim / 2;
  PairAxes p;
  p.axis.assign(static_cast<std::size_t>(pairs), 0);
  p.group.assign(static_cast<std::size_t>(pairs), 0);
  p.index.resize(static_cast<std::size_t>(pairs));
  for (int i = 0; i < pairs; ++i) p.index[static_cast<std::size_t>(i)] = i;
  p.group_rotary_dim = {rotary_dim};
  if (!a.multi()) return p;
  const std::int32_t* s = a.sections.data();
  const std::int32_t* t = a.table.data();
  for (int i = 0; i < pairs; ++i) p.axis[static_cast<std::size_t>(i)] = pair_axis_of(a.assignment, a.num_axes, s, t, i);
  if (a.frequencies != ROPECHECK_AXIS_FREQ_PER_AXIS) return p;
  std::vector<int> count(static_cast<std::size_t>(a.num_axes), 0);
  for (int i = 0; i < pairs; ++i) {
    const int ax = p.axis[static_cast<std::size_t>(i)];
    p.group[static_cast<std::size_t>(i)] = ax;
    p.index[static_cast<std::size_t>(i)] = count[static_cast<std::size_t>(ax)]++;
  }
  p.group_rotary_dim.assign(static_cast<std::size_t>(a.num_axes), 0);
  for (int ax = 0; ax < a.num_axes; ++ax) p.group_rotary_dim[static_cast<std::size_t>(ax)] = 2 * count[static_cast<std::size_t>(ax)];
  return p;
}

}  // namespace ropecheck::ref
