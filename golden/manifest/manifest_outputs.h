// SPDX-License-Identifier: MIT
// A case's invalid and acceptable outputs in the manifest (schema 3 on; a
// fused case's caches and cacheSteps from schema 4): written and read back,
// every name, policy and count checked (FormatError naming the field).
// manifest.cc's part for the outputs, kept apart from the cases and files.
#ifndef ROPECHECK_GOLDEN_MANIFEST_MANIFEST_OUTPUTS_H_
#define ROPECHECK_GOLDEN_MANIFEST_MANIFEST_OUTPUTS_H_

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "golden/outputs/outputs.h"

namespace ropecheck::golden {

nlohmann::ordered_json outputs_to_json(const std::vector<OutputEntry>& outputs);
// `fused`: the case has a KV-cache write, whose outputs name their caches.
std::vector<OutputEntry> parse_outputs(const nlohmann::json& a, const std::string& file, const std::string& path,
                                       bool fused);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_MANIFEST_MANIFEST_OUTPUTS_H_
