// SPDX-License-Identifier: MIT
// A rope config in the form a Hugging Face config.json states it (the
// inverse of parse_rope_config for that form): what a kernel written against
// transformers reads (rope_theta, head_dim, partial_rotary_factor,
// max_position_embeddings, rope_scaling with its rope_type and fields).
#ifndef ROPECHECK_CORE_CONFIG_HF_CONFIG_H_
#define ROPECHECK_CORE_CONFIG_HF_CONFIG_H_

#include <optional>
#include <string>

#include "core/config/config.h"

namespace ropecheck {

// JSON text of the HF form; std::nullopt for a scheme transformers has no
// rope_type for (explicit per-pair frequencies). parse_rope_config reads the
// result back to the same scheme, parameters and head shape.
std::optional<std::string> config_to_hf_json(const RopeConfig& c);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CONFIG_HF_CONFIG_H_
