// SPDX-License-Identifier: MIT
// The readers core/config/config.cc and core/config/model_rope.cc share: one rope from a
// Hugging Face config object and its rope dict, and ropecheck's own schema.
// Internal to core/.
#ifndef ROPECHECK_CORE_CONFIG_CONFIG_INTERNAL_H_
#define ROPECHECK_CORE_CONFIG_CONFIG_INTERNAL_H_

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/config.h"

namespace ropecheck::detail {

// The rope_parameters or rope_scaling object of `top` (nullptr for none or
// null); both present is an error. *dict_path is set to its JSON path + ".".
const nlohmann::json* rope_dict_of(const nlohmann::json& top, const std::string& top_path, std::string* dict_path);
// One rope: head geometry, rope_theta and the model's layout from `top`
// (at JSON path top_path, "" or "text_config."), the scheme from `rope`
// (nullptr: default scheme, unless `top` is itself a bare rope dict). A key
// of `rope` ropecheck does not read is a ConfigError naming it. Not validated.
RopeConfig read_hf_rope(const nlohmann::json& top, const std::string& top_path, const nlohmann::json* rope,
                        const std::string& rope_path);
RopeConfig read_own_schema(const nlohmann::json& j);

}  // namespace ropecheck::detail

#endif  // ROPECHECK_CORE_CONFIG_CONFIG_INTERNAL_H_
