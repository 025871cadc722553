// SPDX-License-Identifier: MIT
// The fields both config forms (a Hugging Face rope dict and ropecheck's own schema) read the same way.
#include <cmath>
#include <string>
#include <vector>

#include "core/config/config_internal.h"
#include "core/config/json_reader.h"
#include "ropecheck/float_compare.h"
#include "ropecheck/names.h"

namespace ropecheck::detail {
namespace {

using ref::ConfigError;

// Schemes whose formula needs a scaling factor: leaving it out is an
// error, never a silent factor of 1. (LongRoPE derives its factor from the
// two context lengths when the dict has none, as HF does.)
bool needs_factor(ropecheck_scheme_t s) {
  return s == ROPECHECK_SCHEME_LINEAR || s == ROPECHECK_SCHEME_NTK_AWARE || s == ROPECHECK_SCHEME_DYNAMIC_NTK ||
         s == ROPECHECK_SCHEME_YARN || s == ROPECHECK_SCHEME_LLAMA3;
}

}  // namespace

void read_scheme_fields(const JsonReader& r, ref::FreqSpec& f) {
  if (needs_factor(f.scheme) && !r.has("factor"))
    throw ConfigError(r.name("factor"), "missing (the " + std::string(scheme_name(f.scheme)) + " scheme needs its scaling factor)");
  if (r.has("factor")) f.factor = r.number("factor");
  if (r.has("original_max_position_embeddings"))
    f.original_max_position = r.integer("original_max_position_embeddings", 1, ref::kMaxConfigPosition);
  if (r.has("original_max_position")) f.original_max_position = r.integer("original_max_position", 1, ref::kMaxConfigPosition);
  if (r.has("beta_fast")) f.beta_fast = r.number("beta_fast");
  if (r.has("beta_slow")) f.beta_slow = r.number("beta_slow");
  if (r.has("truncate")) f.truncate = r.boolean("truncate");
  if (r.has("attention_factor")) f.attention_factor = r.number("attention_factor");
  if (r.has("mscale")) f.mscale = r.number("mscale");
  if (r.has("mscale_all_dim")) f.mscale_all_dim = r.number("mscale_all_dim");
  if (r.has("low_freq_factor")) f.low_freq_factor = r.number("low_freq_factor");
  if (r.has("high_freq_factor")) f.high_freq_factor = r.number("high_freq_factor");
  if (r.has("short_factor")) f.short_factor = r.numbers("short_factor", 2048);
  if (r.has("long_factor")) f.long_factor = r.numbers("long_factor", 2048);
  if (r.has("seq_len")) f.seq_len = r.integer("seq_len", 0, ref::kMaxConfigPosition);
}

std::vector<std::int32_t> whole_numbers(const JsonReader& r, const char* key, std::size_t max_count) {
  std::vector<std::int32_t> out;
  for (double n : r.numbers(key, max_count)) {
    if (!(n >= 0 && n <= ref::kMaxHeadDim && exactly_equal(n, std::trunc(n))))
      throw ConfigError(r.name(key), "must hold whole numbers in [0, " + std::to_string(ref::kMaxHeadDim) + "]");
    out.push_back(static_cast<std::int32_t>(n));
  }
  return out;
}

}  // namespace ropecheck::detail
