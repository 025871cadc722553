// SPDX-License-Identifier: MIT
// The multi-axis description of a golden case in manifest.json (schema
// version 2): how many position axes the case has, how its pairs are
// assigned to them and which frequencies they use, as
//   "axes": {"numAxes": 3, "assignment": "sections", "frequencies": "shared",
//            "sections": [16, 24, 24]}
// ("table": [...] with one axis per pair for the table assignment). The
// names are ropecheck/names.h's, lower case; the assignments themselves are
// defined once, in ropecheck/axes.h.
#ifndef ROPECHECK_GOLDEN_MANIFEST_AXES_JSON_H_
#define ROPECHECK_GOLDEN_MANIFEST_AXES_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "reference/axis_spec.h"

namespace ropecheck::golden {

// The "axes" object of a multi-axis case (a must be multi()).
nlohmann::ordered_json axes_to_json(const ref::AxisSpec& a);

// Reads an "axes" object back and validates it for the case's config
// (ref::validate_axes: the assignment axes_error accepts, per-axis
// frequencies only for the default and linear schemes). Throws FormatError
// naming `file` and the JSON path (`path` is the object's, "$.cases[3].axes").
ref::AxisSpec parse_axes(const nlohmann::json& j, const RopeConfig& config, const std::string& file,
                         const std::string& path);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_MANIFEST_AXES_JSON_H_
