// SPDX-License-Identifier: MIT
// A rope config in the form a Hugging Face config.json states it, read and written.
#include "core/config/hf_config.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace ropecheck {
namespace {

using nlohmann::ordered_json;

// The smallest double f with int(head_dim * f) == rotary_dim: transformers
// derives the rotary width as int(head_dim * partial_rotary_factor), and the
// plain quotient can land one below (58 / 100 * 100 = 57.99999999999999).
double partial_rotary_factor(int rotary_dim, int head_dim) {
  double f = static_cast<double>(rotary_dim) / head_dim;
  while (static_cast<int>(head_dim * f) < rotary_dim) f = std::nextafter(f, 2.0);
  return f;
}

}  // namespace

std::optional<std::string> config_to_hf_json(const RopeConfig& c) {
  const ref::FreqSpec& f = c.freq;
  if (f.scheme == ROPECHECK_SCHEME_EXPLICIT) return std::nullopt;
  ordered_json j;
  j["head_dim"] = c.shape.head_dim;
  if (c.shape.rotary_dim != c.shape.head_dim)
    j["partial_rotary_factor"] = partial_rotary_factor(c.shape.rotary_dim, c.shape.head_dim);
  j["rope_theta"] = f.base;
  ordered_json s;
  switch (f.scheme) {
    case ROPECHECK_SCHEME_DEFAULT:
      j["rope_scaling"] = nullptr;
      return j.dump(2);
    case ROPECHECK_SCHEME_LINEAR:
      s = {{"rope_type", "linear"}, {"factor", f.factor}};
      break;
    case ROPECHECK_SCHEME_NTK_AWARE:  // no HF rope_type; ropecheck's reader accepts "ntk"
      s = {{"rope_type", "ntk"}, {"factor", f.factor}};
      break;
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      // HF's dynamic NTK takes L from max_position_embeddings; the current
      // sequence length is a run-time value.
      j["max_position_embeddings"] = f.original_max_position;
      s = {{"rope_type", "dynamic"}, {"factor", f.factor}};
      break;
    case ROPECHECK_SCHEME_YARN:
      s = {{"rope_type", "yarn"},
           {"factor", f.factor},
           {"original_max_position_embeddings", f.original_max_position},
           {"beta_fast", f.beta_fast},
           {"beta_slow", f.beta_slow},
           {"truncate", f.truncate}};
      if (f.mscale > 0) s["mscale"] = f.mscale;
      if (f.mscale_all_dim > 0) s["mscale_all_dim"] = f.mscale_all_dim;
      break;
    case ROPECHECK_SCHEME_LLAMA3:
      s = {{"rope_type", "llama3"},
           {"factor", f.factor},
           {"low_freq_factor", f.low_freq_factor},
           {"high_freq_factor", f.high_freq_factor},
           {"original_max_position_embeddings", f.original_max_position}};
      break;
    case ROPECHECK_SCHEME_LONGROPE:
      s = {{"rope_type", "longrope"},
           {"factor", f.factor},
           {"original_max_position_embeddings", f.original_max_position},
           {"short_factor", f.short_factor},
           {"long_factor", f.long_factor}};
      break;
    default:
      return std::nullopt;
  }
  if (f.attention_factor) s["attention_factor"] = *f.attention_factor;
  j["rope_scaling"] = s;
  return j.dump(2);
}

}  // namespace ropecheck
