// SPDX-License-Identifier: MIT
// The definitions of golden/manifest/manifest_outputs.h.
#include "golden/manifest/manifest_outputs.h"

#include <cmath>

#include "core/config/json_reader.h"
#include "golden/catalog/bug_classes.h"
#include "golden/catalog/catalog.h"
#include "golden/formats/tensor_file.h"

namespace ropecheck::golden {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// "<w>_expected" or "<w>_output_<n>", n >= 1 without leading zeros.
bool output_tensor_name(const std::string& s, const std::string& w) {
  if (s == w + "_expected") return true;
  const std::string prefix = w + "_output_";
  if (s.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string n = s.substr(prefix.size());
  return !n.empty() && n.size() <= 6 && n[0] != '0' && n.find_first_not_of("0123456789") == std::string::npos;
}

// A policy-keyed object of numbers >= 0 or "inf", one per exported policy.
std::vector<std::pair<std::string, double>> per_policy_units(const json& units, const std::string& file,
                                                             const std::string& path) {
  if (!units.is_object()) bad(file, path, "must be an object");
  std::vector<std::pair<std::string, double>> out;
  for (const BudgetPolicy& bp : budget_policies()) {
    const std::string up = path + "." + bp.name;
    if (!units.contains(bp.name)) bad(file, up, "missing (every exported policy has its worst units)");
    const json& v = units.at(bp.name);
    double d = 0;
    if (v.is_string() && v.get<std::string>() == "inf") d = HUGE_VAL;
    else if (v.is_number()) d = v.get<double>();
    else bad(file, up, "must be a number or \"inf\"");
    if (!(d >= 0)) bad(file, up, "must be >= 0");
    out.emplace_back(bp.name, d);
  }
  if (units.size() != out.size()) bad(file, path, "names a policy the export does not have");
  return out;
}

}  // namespace

ordered_json outputs_to_json(const std::vector<OutputEntry>& outputs) {
  ordered_json a = ordered_json::array();
  for (const OutputEntry& e : outputs) {
    ordered_json units = ordered_json::object();
    for (const auto& [policy, u] : e.worst_units) units[policy] = std::isinf(u) ? ordered_json("inf") : ordered_json(u);
    ordered_json o = {{"result", output_result_name(e.result)},
                      {"mutant", e.mutant},
                      {"bugClass", e.bug_class},
                      {"publishedBug", e.published_bug.empty() ? ordered_json(nullptr) : ordered_json(e.published_bug)},
                      {"comment", e.comment},
                      {"q", e.q},
                      {"k", e.k}};
    if (!e.k_cache.empty()) {  // a fused case's (schema 4)
      o["kCache"] = e.k_cache;
      o["vCache"] = e.v_cache.empty() ? ordered_json(nullptr) : ordered_json(e.v_cache);
    }
    o["worstUnits"] = units;
    if (!e.k_cache.empty()) {
      ordered_json steps = ordered_json::object();
      for (const auto& [policy, s] : e.cache_steps) steps[policy] = std::isinf(s) ? ordered_json("inf") : ordered_json(s);
      o["cacheSteps"] = steps;
    }
    o["allowedBy"] = e.allowed_by;
    a.push_back(o);
  }
  return a;
}

std::vector<OutputEntry> parse_outputs(const json& a, const std::string& file, const std::string& path, bool fused) {
  if (!a.is_array()) bad(file, path, "must be an array");
  std::vector<OutputEntry> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string p = path + "[" + std::to_string(i) + "]";
    if (!a[i].is_object()) bad(file, p, "must be an object");
    const JsonReader r(a[i], p + ".");
    OutputEntry e;
    const std::string result = r.string("result");
    if (result != "invalid" && result != "acceptable") bad(file, p + ".result", "must be invalid or acceptable");
    e.result = result == "acceptable" ? OutputResult::kAcceptable : OutputResult::kInvalid;
    e.mutant = r.string("mutant");
    e.bug_class = r.string("bugClass");
    if (!find_bug_class(e.bug_class)) bad(file, p + ".bugClass", "unknown bug class \"" + e.bug_class + "\"");
    const json& pub = r.at("publishedBug");
    if (!pub.is_null() && !pub.is_string()) bad(file, p + ".publishedBug", "must be a string or null");
    if (pub.is_string()) {
      e.published_bug = pub.get<std::string>();
      if (e.published_bug.empty()) bad(file, p + ".publishedBug", "must not be empty (null when none is cited)");
    }
    e.comment = r.string("comment");
    e.q = r.string("q");
    e.k = r.string("k");
    if (!output_tensor_name(e.q, "q")) bad(file, p + ".q", "must be q_expected or q_output_<n>");
    if (!output_tensor_name(e.k, "k")) bad(file, p + ".k", "must be k_expected or k_output_<n>");
    const json& units = r.at("worstUnits");
    e.worst_units = per_policy_units(units, file, p + ".worstUnits");
    // A fused case's output names the caches it left (schema 4).
    const json& x = a[i];  // vCache may be null (mla_joint): present all the same
    if (fused != x.contains("kCache") || fused != x.contains("vCache") || fused != x.contains("cacheSteps"))
      bad(file, p + ".kCache",
          fused ? "an output of a case with a kvWrite names kCache, vCache and cacheSteps"
                : "only an output of a case with a kvWrite names kCache, vCache or cacheSteps");
    if (fused) {
      e.k_cache = r.string("kCache");
      if (!output_tensor_name(e.k_cache, "k_cache")) bad(file, p + ".kCache", "must be k_cache_expected or k_cache_output_<n>");
      const json& vc = r.at("vCache");
      if (!vc.is_null()) {
        if (!vc.is_string() || !output_tensor_name(vc.get<std::string>(), "v_cache"))
          bad(file, p + ".vCache", "must be v_cache_expected, v_cache_output_<n> or null (mla_joint)");
        e.v_cache = vc.get<std::string>();
      }
      e.cache_steps = per_policy_units(r.at("cacheSteps"), file, p + ".cacheSteps");
    }
    const json& allowed = r.at("allowedBy");
    if (!allowed.is_array()) bad(file, p + ".allowedBy", "must be an array");
    for (const json& x : allowed) {
      if (!x.is_string() || !units.contains(x.get<std::string>()))
        bad(file, p + ".allowedBy", "names " + x.dump() + ", not a policy of the export");
      for (const std::string& y : e.allowed_by)
        if (y == x.get<std::string>()) bad(file, p + ".allowedBy", "names " + y + " twice");
      e.allowed_by.push_back(x.get<std::string>());
    }
    if (e.result == OutputResult::kInvalid && !e.allowed_by.empty())
      bad(file, p + ".allowedBy", "must be empty for an invalid output (no declared policy allows it)");
    if (e.result == OutputResult::kAcceptable &&
        (e.allowed_by.empty() || e.allowed_by.size() == e.worst_units.size()))
      bad(file, p + ".allowedBy", "an acceptable output is allowed by some policies and rejected by the others");
    out.push_back(std::move(e));
  }
  return out;
}


}  // namespace ropecheck::golden
