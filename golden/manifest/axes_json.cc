// SPDX-License-Identifier: MIT
// The definitions of golden/manifest/axes_json.h.
#include "golden/manifest/axes_json.h"

#include <cctype>
#include <cstdint>
#include <vector>

#include "core/config/json_reader.h"
#include "golden/formats/tensor_file.h"
#include "ropecheck/names.h"

namespace ropecheck::golden {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// names.h spells the assignments as the capability flags do (SECTIONS); the
// manifest writes every enumeration in lower case, as it does layouts.
std::string assignment_name(unsigned a) {
  std::string s(axis_assignment_name(a));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// How many integers an array may hold, and their range [lo, hi].
struct IntBounds {
  std::size_t max_count;
  int lo, hi;
};

// An array of at most max_count integers in [lo, hi].
std::vector<std::int32_t> int_list(const JsonReader& r, const char* key, IntBounds bounds, const std::string& file) {
  const auto [max_count, lo, hi] = bounds;
  const json& v = r.at(key);
  if (!v.is_array() || v.size() > max_count)
    bad(file, r.name(key), "must be an array of at most " + std::to_string(max_count) + " integers");
  std::vector<std::int32_t> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer() || v[i].get<std::int64_t>() < lo || v[i].get<std::int64_t>() > hi)
      bad(file, r.name(key) + "[" + std::to_string(i) + "]",
          "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got " + v[i].dump() + ")");
    out.push_back(static_cast<std::int32_t>(v[i].get<std::int64_t>()));
  }
  return out;
}

}  // namespace

ordered_json axes_to_json(const ref::AxisSpec& a) {
  ordered_json j = {{"numAxes", a.num_axes},
                    {"assignment", assignment_name(a.assignment)},
                    {"frequencies", std::string(axis_frequencies_name(a.frequencies))}};
  if (a.assignment == ROPECHECK_AXES_TABLE)
    j["table"] = a.table;
  else
    j["sections"] = a.sections;
  return j;
}

ref::AxisSpec parse_axes(const json& j, const RopeConfig& config, const std::string& file, const std::string& path) {
  if (!j.is_object()) bad(file, path, "must be an object");
  const JsonReader r(j, path + ".");
  for (const auto& [key, value] : j.items())
    if (key != "numAxes" && key != "assignment" && key != "frequencies" && key != "sections" && key != "table")
      bad(file, path + "." + key_name(key), "is not a field of axes (numAxes, assignment, frequencies, sections, table)");
  ref::AxisSpec a;
  a.num_axes = static_cast<int>(r.integer("numAxes", 1, ROPECHECK_MAX_AXES));
  const std::string assignment = r.string("assignment");
  bool known = false;
  for (unsigned k = 0; k < ROPECHECK_AXES_COUNT; ++k)
    if (assignment == assignment_name(k)) {
      a.assignment = static_cast<ropecheck_axis_assignment_t>(k);
      known = true;
    }
  if (!known) bad(file, r.name("assignment"), "must be sections, interleaved or table (got \"" + assignment + "\")");
  const std::string frequencies = r.string("frequencies");
  if (frequencies == axis_frequencies_name(ROPECHECK_AXIS_FREQ_SHARED))
    a.frequencies = ROPECHECK_AXIS_FREQ_SHARED;
  else if (frequencies == axis_frequencies_name(ROPECHECK_AXIS_FREQ_PER_AXIS))
    a.frequencies = ROPECHECK_AXIS_FREQ_PER_AXIS;
  else
    bad(file, r.name("frequencies"), "must be shared or per_axis (got \"" + frequencies + "\")");
  const int pairs = config.shape.rotary_dim / 2;
  const bool table = a.assignment == ROPECHECK_AXES_TABLE;
  // The assignment's own list, and not the other one (which would be ignored).
  if (r.has(table ? "sections" : "table"))
    bad(file, r.name(table ? "sections" : "table"), std::string("is not read by the ") + assignment + " assignment");
  if (table)
    a.table = int_list(r, "table", {static_cast<std::size_t>(pairs), 0, ROPECHECK_MAX_AXES - 1}, file);
  else
    a.sections = int_list(r, "sections", {ROPECHECK_MAX_AXES, 0, pairs}, file);
  try {
    ref::validate_axes(a, config.freq, config.shape);
  } catch (const ref::ConfigError& e) {  // names the ABI field: axis_sections[1], pair_axis[3], ...
    bad(file, path, e.field() + ": " + e.message());
  }
  return a;
}

}  // namespace ropecheck::golden
