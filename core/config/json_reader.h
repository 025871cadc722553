// SPDX-License-Identifier: MIT
// Typed reads of a JSON object's fields, every error naming the field by
// its path ("rope_scaling.factor", "$.cases[3].id") and the bound it broke.
// The config reader and the golden manifest reader both read through it.
#ifndef ROPECHECK_CORE_CONFIG_JSON_READER_H_
#define ROPECHECK_CORE_CONFIG_JSON_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reference/freq_spec.h"  // ref::ConfigError

namespace ropecheck {

// One JSON value from text, refusing what nlohmann's parser lets through
// but a config, manifest or tensor header must not hold: a key repeated in
// an object (nlohmann keeps the last one, so two readers could see two
// different documents), a NUL byte anywhere, anything after the value, and
// nesting deeper than max_depth. Throws ref::ConfigError whose field is the
// JSON path of the offending key ("rope_scaling.factor") or "json".
nlohmann::json parse_json_strictly(std::string_view text, int max_depth = 32);

// A key as a field name in an error: the empty key is written "" so that
// the error still names a field.
inline std::string key_name(const std::string& key) { return key.empty() ? "\"\"" : key; }

class JsonReader {
 public:
  // `prefix` is prepended to every key in errors: "", "rope_scaling.", "$.".
  JsonReader(const nlohmann::json& obj, std::string prefix) : obj_(obj), prefix_(std::move(prefix)) {}

  const nlohmann::json& object() const { return obj_; }
  std::string name(const char* key) const { return prefix_ + key; }
  // Present and not null.
  bool has(const char* key) const;
  // Present (null included); a ConfigError "missing" otherwise.
  const nlohmann::json& at(const char* key) const;

  double number(const char* key) const;
  // An integer in [lo, hi]; an integral floating-point value (4096.0) is
  // accepted, as configs written by Python sometimes carry them.
  std::int64_t integer(const char* key, std::int64_t lo, std::int64_t hi) const;
  bool boolean(const char* key) const;
  std::string string(const char* key) const;
  std::vector<double> numbers(const char* key, std::size_t max_count) const;

 private:
  const nlohmann::json& obj_;
  std::string prefix_;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CONFIG_JSON_READER_H_
