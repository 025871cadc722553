// SPDX-License-Identifier: MIT
// The readers the config files share: one rope from a Hugging Face config
// object and its rope dict (core/config/hf_rope.cc), ropecheck's own schema
// (core/config/own_schema.cc), and the fields both forms read the same way
// (core/config/config_fields.cc). Internal to core/.
#ifndef ROPECHECK_CORE_CONFIG_CONFIG_INTERNAL_H_
#define ROPECHECK_CORE_CONFIG_CONFIG_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "core/config/json_reader.h"

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

// The scheme's fields (factor, the original length, YaRN's, Llama 3's and
// LongRoPE's parameters, seq_len) from r into f; a scheme that needs a
// factor and has none is a ConfigError.
void read_scheme_fields(const JsonReader& r, ref::FreqSpec& f);
// r's `key`: a list of at most max_count whole numbers in [0, kMaxHeadDim]
// (pair counts, axis indices).
std::vector<std::int32_t> whole_numbers(const JsonReader& r, const char* key, std::size_t max_count);

}  // namespace ropecheck::detail

#endif  // ROPECHECK_CORE_CONFIG_CONFIG_INTERNAL_H_
