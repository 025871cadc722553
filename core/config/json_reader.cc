// SPDX-License-Identifier: MIT
// Typed reads of a JSON object's fields, errors naming the field by its path and the bound it broke.
#include "core/config/json_reader.h"

#include <cmath>
#include <set>

#include "reference/freq_spec.h"
#include "ropecheck/float_compare.h"

namespace ropecheck {

using nlohmann::json;
using ref::ConfigError;

namespace {

// Where the parser is: one frame per open object or array, so a repeated
// key is named by its whole path.
struct Frame {
  bool object = false;
  std::string path;
  std::set<std::string> keys;
  std::string key;        // the current key of an object
  std::size_t index = 0;  // the current element of an array
  std::string child() const {
    if (object) {
      return path.empty() ? key_name(key) : path + "." + key_name(key);
    }
    return path + "[" + std::to_string(index) + "]";
  }
};

}  // namespace

json parse_json_strictly(std::string_view text, int max_depth) {
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    throw ConfigError("json", "holds a NUL byte at offset " + std::to_string(nul) + " (not a JSON text)");
  std::vector<Frame> stack;
  auto next_element = [&] {
    if (!stack.empty() && !stack.back().object) ++stack.back().index;
  };
  const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start: {
        if (depth >= max_depth) throw ConfigError("json", "must nest at most " + std::to_string(max_depth) + " levels");
        Frame f;
        f.object = event == json::parse_event_t::object_start;
        f.path = stack.empty() ? "" : stack.back().child();
        stack.push_back(std::move(f));
        break;
      }
      case json::parse_event_t::key: {
        Frame& f = stack.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          throw ConfigError(f.child(), "appears twice in one object (a reader may take either value)");
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack.pop_back();
        next_element();
        break;
      case json::parse_event_t::value:
        next_element();
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), check);
  } catch (const json::exception& e) {
    throw ConfigError("json", std::string("is not valid JSON: ") + e.what());
  }
}

bool JsonReader::has(const char* key) const { return obj_.is_object() && obj_.contains(key) && !obj_.at(key).is_null(); }

const json& JsonReader::at(const char* key) const {
  if (!obj_.is_object() || !obj_.contains(key)) throw ConfigError(name(key), "missing");
  return obj_.at(key);
}

double JsonReader::number(const char* key) const {
  const json& v = at(key);
  if (!v.is_number()) throw ConfigError(name(key), "must be a number (got " + std::string(v.type_name()) + ")");
  return v.get<double>();
}

std::int64_t JsonReader::integer(const char* key, std::int64_t lo, std::int64_t hi) const {
  const json& v = at(key);
  const std::string range = "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
      throw ConfigError(name(key), range + " (got " + std::to_string(v.get<std::uint64_t>()) + ")");
    const auto i = v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>()) : v.get<std::int64_t>();
    if (i < lo || i > hi) throw ConfigError(name(key), range + " (got " + std::to_string(i) + ")");
    return i;
  }
  double d;
  if (!v.is_number_float() || !std::isfinite(d = v.get<double>()) || !exactly_equal(d, std::floor(d)))
    throw ConfigError(name(key), "must be an integer");
  if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) throw ConfigError(name(key), range);
  return static_cast<std::int64_t>(d);
}

bool JsonReader::boolean(const char* key) const {
  const json& v = at(key);
  if (!v.is_boolean()) throw ConfigError(name(key), "must be true or false");
  return v.get<bool>();
}

std::string JsonReader::string(const char* key) const {
  const json& v = at(key);
  if (!v.is_string()) throw ConfigError(name(key), "must be a string");
  return v.get<std::string>();
}

std::vector<double> JsonReader::numbers(const char* key, std::size_t max_count) const {
  const json& v = at(key);
  if (!v.is_array()) throw ConfigError(name(key), "must be an array of numbers");
  if (v.size() > max_count)
    throw ConfigError(name(key), "must have at most " + std::to_string(max_count) + " entries");
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number()) throw ConfigError(name(key) + "[" + std::to_string(i) + "]", "must be a number");
    out.push_back(v[i].get<double>());
  }
  return out;
}

}  // namespace ropecheck
