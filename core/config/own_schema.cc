// SPDX-License-Identifier: MIT
// ropecheck's own config schema ({"ropecheck_config": 1, ...}), read and written.
#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/config.h"
#include "core/config/config_internal.h"
#include "core/config/json_reader.h"
#include "ropecheck/names.h"

namespace ropecheck {
namespace {

using nlohmann::json;
using ref::ConfigError;
using detail::whole_numbers;
using detail::read_scheme_fields;

// The multi-axis part of ropecheck's own schema: {"assignment": "sections" |
// "interleaved" | "table", "frequencies": "shared" | "per_axis",
// "sections": [...] or "table": [...]}, validated for the config's shape.
ref::AxisSpec read_own_axes(const JsonReader& r, const RopeConfig& c) {
  ref::AxisSpec a;
  const std::string kind = r.has("assignment") ? r.string("assignment") : "sections";
  if (kind == "sections") a.assignment = ROPECHECK_AXES_SECTIONS;
  else if (kind == "interleaved") a.assignment = ROPECHECK_AXES_INTERLEAVED;
  else if (kind == "table") a.assignment = ROPECHECK_AXES_TABLE;
  else throw ConfigError(r.name("assignment"), "must be sections, interleaved or table (got '" + kind + "')");
  const std::string freqs = r.has("frequencies") ? r.string("frequencies") : "shared";
  if (freqs == "per_axis") a.frequencies = ROPECHECK_AXIS_FREQ_PER_AXIS;
  else if (freqs != "shared") throw ConfigError(r.name("frequencies"), "must be shared or per_axis (got '" + freqs + "')");
  if (a.assignment == ROPECHECK_AXES_TABLE) {
    a.table = whole_numbers(r, "table", ref::kMaxHeadDim / 2);
    int most = -1;
    for (std::int32_t x : a.table) most = std::max(most, static_cast<int>(x));
    a.num_axes = r.has("num_axes") ? static_cast<int>(r.integer("num_axes", 1, ROPECHECK_MAX_AXES)) : most + 1;
  } else {
    a.sections = whole_numbers(r, "sections", ROPECHECK_MAX_AXES);
    a.num_axes = static_cast<int>(a.sections.size());
  }
  try {
    ref::validate_axes(a, c.freq, c.shape);
  } catch (const ConfigError& e) {
    throw ConfigError(r.name(e.field().c_str()), e.message());
  }
  return a;
}

RopeConfig parse_own(const json& j) {
  const JsonReader r(j, "");
  RopeConfig c;
  if (r.integer("ropecheck_config", 1, 1) != 1) throw ConfigError("ropecheck_config", "must be 1");
  c.shape.head_dim = static_cast<int>(r.integer("head_dim", 1, ref::kMaxHeadDim));
  c.shape.rotary_dim = r.has("rotary_dim") ? static_cast<int>(r.integer("rotary_dim", 0, ref::kMaxHeadDim))
                                           : c.shape.head_dim;
  if (r.has("layout")) {
    ropecheck_layout_t l;
    if (!parse_layout(r.string("layout"), &l)) throw ConfigError("layout", "must be interleaved or half_split");
    c.layout = l;
  }
  if (r.has("scheme")) {
    ropecheck_scheme_t s;
    if (!parse_scheme(r.string("scheme"), &s))
      throw ConfigError("scheme", "must be one of default, linear, ntk, dynamic_ntk, yarn, llama3, longrope, explicit");
    c.freq.scheme = s;
  }
  if (r.has("base")) c.freq.base = r.number("base");
  if (!r.has("scheme") && r.has("factor")) throw ConfigError("scheme", "missing (a factor needs its scheme)");
  read_scheme_fields(r, c.freq);
  if (r.has("inv_freq")) c.freq.inv_freq = r.numbers("inv_freq", 2048);
  if (r.has("axes")) c.axes = read_own_axes(JsonReader(r.at("axes"), "axes."), c);
  return c;
}

}  // namespace

RopeConfig detail::read_own_schema(const json& j) { return parse_own(j); }

std::string config_to_json(const RopeConfig& c) {
  json j;
  j["ropecheck_config"] = 1;
  j["head_dim"] = c.shape.head_dim;
  j["rotary_dim"] = c.shape.rotary_dim;
  if (c.layout) j["layout"] = std::string(layout_name(*c.layout));
  const ref::FreqSpec& f = c.freq;
  j["scheme"] = std::string(scheme_name(f.scheme));
  j["base"] = f.base;
  j["factor"] = f.factor;
  if (f.original_max_position > 0) j["original_max_position"] = f.original_max_position;
  j["seq_len"] = f.seq_len;
  j["beta_fast"] = f.beta_fast;
  j["beta_slow"] = f.beta_slow;
  j["truncate"] = f.truncate;
  if (f.attention_factor) j["attention_factor"] = *f.attention_factor;
  j["mscale"] = f.mscale;
  j["mscale_all_dim"] = f.mscale_all_dim;
  j["low_freq_factor"] = f.low_freq_factor;
  j["high_freq_factor"] = f.high_freq_factor;
  if (!f.short_factor.empty()) j["short_factor"] = f.short_factor;
  if (!f.long_factor.empty()) j["long_factor"] = f.long_factor;
  if (!f.inv_freq.empty()) j["inv_freq"] = f.inv_freq;
  if (c.axes.multi()) {
    const ref::AxisSpec& a = c.axes;
    json axes;
    axes["assignment"] = a.assignment == ROPECHECK_AXES_INTERLEAVED ? "interleaved"
                         : a.assignment == ROPECHECK_AXES_TABLE     ? "table"
                                                                    : "sections";
    axes["frequencies"] = std::string(axis_frequencies_name(a.frequencies));
    if (a.assignment == ROPECHECK_AXES_TABLE) {
      axes["num_axes"] = a.num_axes;
      axes["table"] = a.table;
    } else {
      axes["sections"] = a.sections;
    }
    j["axes"] = axes;
  }
  return j.dump(2);
}

}  // namespace ropecheck
