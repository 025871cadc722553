// SPDX-License-Identifier: MIT
// The definitions of gate/report_json.h.
#include "gate/report_json.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/config/json_reader.h"
#include "core/io/sha256.h"
#include "gate/gate.h"
#include "core/report/report_text.h"
#include "reference/freq_spec.h"

namespace ropecheck {
namespace {

using nlohmann::json;
using ref::ConfigError;

// Limits on what a report may hold, far above any real run: a malformed
// file cannot make the reader allocate without bound.
constexpr std::int64_t kMaxCases = kMaxCaseCount;  // --cases' own bound (gate.h)
constexpr std::size_t kMaxEntries = 1 << 20;
constexpr int kMaxBucket = 16 * 64;  // curve buckets: 1/16 octave of |position| < 2^64

// A worst error: a JSON number, or "inf" (a NaN or infinite error is stored
// as infinity by the judge). JSON has no infinity.
json real(double v) { return std::isinf(v) ? json("inf") : json(v); }

double read_real(const JsonReader& r, const char* key) {
  const json& v = r.at(key);
  if (v.is_string() && v.get<std::string>() == "inf") return HUGE_VAL;
  if (!v.is_number()) throw ConfigError(r.name(key), "must be a number or \"inf\"");
  const double d = v.get<double>();
  if (!(d >= 0) || !std::isfinite(d)) throw ConfigError(r.name(key), "must be >= 0");
  return d;
}

// A value of a kernel's output (any double: NaN and infinities included) as
// C's hexadecimal float text, exact and readable back by strtod.
json exact(double v) { return format_number(v, "%a"); }

double read_exact(const JsonReader& r, const char* key) {
  const std::string s = r.string(key);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size())
    throw ConfigError(r.name(key), "must be a number as C's %a writes it (\"0x1.8p+1\", \"-inf\", \"nan\")");
  return v;
}

json element_to_json(const Violation& v) {
  return {{"tensor", v.tensor}, {"token", v.token},           {"head", v.head},     {"channel", v.channel},
          {"position", v.position}, {"got", exact(v.got)}, {"expected", exact(v.expected)},
          {"budget", exact(v.budget)}, {"what", v.what},   {"detail", v.detail}};
}

Violation element_from_json(const JsonReader& e) {
  Violation v;
  v.tensor = e.string("tensor");
  if (v.tensor != "q" && v.tensor != "k") throw ConfigError(e.name("tensor"), "must be \"q\" or \"k\"");
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max(), kMin = std::numeric_limits<std::int64_t>::min();
  v.token = e.integer("token", -1, kMax);
  v.head = static_cast<int>(e.integer("head", -1, std::numeric_limits<int>::max()));
  v.channel = static_cast<int>(e.integer("channel", -1, std::numeric_limits<int>::max()));
  v.position = e.integer("position", kMin, kMax);
  v.got = read_exact(e, "got");
  v.expected = read_exact(e, "expected");
  v.budget = read_exact(e, "budget");
  v.what = e.string("what");
  v.detail = e.string("detail");
  return v;
}

const json& array(const JsonReader& r, const char* key, std::size_t max) {
  const json& v = r.at(key);
  if (!v.is_array()) throw ConfigError(r.name(key), "must be an array");
  if (v.size() > max) throw ConfigError(r.name(key), "must have at most " + std::to_string(max) + " entries");
  return v;
}

JsonReader entry(const json& a, std::size_t i, const std::string& where) {
  const std::string p = where + "[" + std::to_string(i) + "]";
  if (!a[i].is_object()) throw ConfigError(p, "must be an object");
  return JsonReader(a[i], p + ".");
}

// cases = passed + failed + skipped, each in [0, total].
template <class Stats>
void read_counts(const JsonReader& r, std::int64_t total, Stats* s) {
  s->cases = static_cast<int>(r.integer("cases", 0, total));
  s->passed = static_cast<int>(r.integer("passed", 0, total));
  s->failed = static_cast<int>(r.integer("failed", 0, total));
  s->skipped = static_cast<int>(r.integer("skipped", 0, total));
  if (s->passed + s->failed + s->skipped != s->cases)
    throw ConfigError(r.name("cases"), "must equal passed + failed + skipped");
}
template <class Stats>
void write_counts(const Stats& s, json* o) {
  (*o)["cases"] = s.cases;
  (*o)["passed"] = s.passed;
  (*o)["failed"] = s.failed;
  (*o)["skipped"] = s.skipped;
}

json impl_to_json(const ImplReport& i) {
  json o{{"name", i.name}, {"reproduceArgs", i.reproduce_args}, {"policy", i.policy}};
  for (const auto& [key, map] : {std::pair{"families", &i.families}, std::pair{"shapes", &i.shapes}, std::pair{"fused", &i.fused}}) {
    json& fam = o[key] = json::array();
    for (const auto& [name, f] : *map) {
      json e{{"family", name}, {"worstUnits", real(f.worst_units)}, {"worstUlps", real(f.worst_ulps)},
             {"sampled", f.sampled}};
      write_counts(f, &e);
      fam.push_back(e);
    }
  }
  json& props = o["properties"] = json::array();
  for (const auto& [name, p] : i.properties) {
    json e{{"name", name},          {"applicable", p.applicable}, {"notApplicable", p.not_applicable},
           {"declined", p.declined}, {"worstUnits", real(p.worst_units)}};
    write_counts(p, &e);
    props.push_back(e);
  }
  json& bins = o["bins"] = json::array();
  for (const BinStats& b : i.bins)
    bins.push_back({{"elements", b.elements}, {"worstUnits", real(b.worst_units)}, {"worstUlps", real(b.worst_ulps)}});
  json& curve = o["curve"] = json::array();
  for (const auto& [bucket, p] : i.curve)
    curve.push_back({{"bucket", bucket}, {"position", p.position}, {"caseIndex", p.case_index},
                     {"worstUnits", real(p.worst_units)}, {"worstUlps", real(p.worst_ulps)}});
  json& fails = o["failures"] = json::array();
  for (const FailureRecord& f : i.failures) {
    json e{{"caseIndex", f.case_index},         {"property", f.property},   {"family", f.family},
           {"message", f.message},              {"caseDescription", f.case_description},
           {"reproduce", f.reproduce},          {"worstUnits", real(f.worst_units)}};
    if (f.element) e["element"] = element_to_json(*f.element);
    fails.push_back(std::move(e));
  }
  json& skipped = o["skipped"] = json::array();
  for (const auto& [why, n] : i.skipped) skipped.push_back({{"reason", why}, {"cases", n}});
  o["redrawn"] = i.redrawn;
  // The verdict floor's findings, for a reader of this file (ours
  // recomputes them from the counts): a failed verdict with no failing case.
  json& floor = o["underFloor"] = json::array();
  for (const auto& [property, why] : i.under_floor) floor.push_back({{"property", property}, {"why", why}});
  json& terms = o["budgetTerms"] = json::array();
  for (int t = 0; t < kBudgetTermCount; ++t)
    terms.push_back({{"elements", i.elements_by_term[t]}, {"worstUnits", real(i.worst_by_term[t])}});
  json& ulps = o["ulpsByPosition"] = json::array();
  for (const auto& [dtype, points] : i.ulps_by_position)
    for (const auto& [pos, u] : points)
      ulps.push_back({{"dtype", dtype},
                      {"position", pos},
                      {"worstUlps", real(u.worst_ulps)},
                      {"caseIndex", u.case_index},
                      {"worstRoundedUlps", real(u.worst_rounded_ulps)}});
  return o;
}

// impl_from_json's parts, one per array of an implementation's entry, each
// bounding what it reads by the run's case count `total`.
void families_from_json(const JsonReader& r, std::int64_t total, ImplReport& i) {
  for (const auto& [key, map] : {std::pair{"families", &i.families}, std::pair{"shapes", &i.shapes}, std::pair{"fused", &i.fused}}) {
    const json& fam = array(r, key, kMaxEntries);
    for (std::size_t k = 0; k < fam.size(); ++k) {
      const JsonReader e = entry(fam, k, r.name(key));
      const std::string name = e.string("family");
      if (map->count(name)) throw ConfigError(e.name("family"), "repeated: " + name);
      FamilyStats& f = (*map)[name];
      read_counts(e, total, &f);
      f.worst_units = read_real(e, "worstUnits");
      f.worst_ulps = read_real(e, "worstUlps");
      f.sampled = static_cast<int>(e.integer("sampled", 0, f.passed + f.failed));
    }
  }
}

void properties_from_json(const JsonReader& r, std::int64_t total, ImplReport& i) {
  const json& props = array(r, "properties", kMaxEntries);
  for (std::size_t k = 0; k < props.size(); ++k) {
    const JsonReader e = entry(props, k, r.name("properties"));
    PropertyStats p;
    p.applicable = e.boolean("applicable");
    p.not_applicable = e.string("notApplicable");
    if (p.applicable != p.not_applicable.empty())
      throw ConfigError(e.name("notApplicable"), "must be empty exactly when applicable");
    read_counts(e, total, &p);
    p.declined = static_cast<int>(e.integer("declined", 0, p.skipped));
    p.worst_units = read_real(e, "worstUnits");
    i.properties.emplace_back(e.string("name"), p);
  }
}

void position_bins_from_json(const JsonReader& r, ImplReport& i) {
  const json& bins = array(r, "bins", kPositionBins);
  if (bins.size() != kPositionBins) throw ConfigError(r.name("bins"), "must have " + std::to_string(kPositionBins) + " entries");
  for (std::size_t k = 0; k < bins.size(); ++k) {
    const JsonReader e = entry(bins, k, r.name("bins"));
    i.bins[k].elements = e.integer("elements", 0, std::numeric_limits<std::int64_t>::max());
    i.bins[k].worst_units = read_real(e, "worstUnits");
    i.bins[k].worst_ulps = read_real(e, "worstUlps");
  }
}

void curve_from_json(const JsonReader& r, std::int64_t total, ImplReport& i) {
  const json& curve = array(r, "curve", kMaxEntries);
  for (std::size_t k = 0; k < curve.size(); ++k) {
    const JsonReader e = entry(curve, k, r.name("curve"));
    const int bucket = static_cast<int>(e.integer("bucket", 0, kMaxBucket));
    if (i.curve.count(bucket)) throw ConfigError(e.name("bucket"), "repeated: " + std::to_string(bucket));
    CurvePoint& p = i.curve[bucket];
    p.position = e.integer("position", std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
    p.case_index = static_cast<int>(e.integer("caseIndex", 0, total - 1));
    p.worst_units = read_real(e, "worstUnits");
    p.worst_ulps = read_real(e, "worstUlps");
  }
}

// After properties_from_json: a failure names one of them.
void failures_from_json(const JsonReader& r, std::int64_t total, ImplReport& i) {
  const json& fails = array(r, "failures", kMaxEntries);
  for (std::size_t k = 0; k < fails.size(); ++k) {
    const JsonReader e = entry(fails, k, r.name("failures"));
    FailureRecord f;
    f.case_index = static_cast<int>(e.integer("caseIndex", 0, total - 1));
    f.property = e.string("property");
    bool known = false;
    for (const auto& [name, p] : i.properties) known |= name == f.property;
    if (!known) throw ConfigError(e.name("property"), "not one of this implementation's properties: " + f.property);
    f.family = e.string("family");
    f.message = e.string("message");
    f.case_description = e.string("caseDescription");
    f.reproduce = e.string("reproduce");
    f.worst_units = read_real(e, "worstUnits");
    if (e.has("element")) {
      const json& el = e.at("element");
      if (!el.is_object()) throw ConfigError(e.name("element"), "must be an object");
      f.element = element_from_json(JsonReader(el, e.name("element") + "."));
    }
    i.failures.push_back(std::move(f));
  }
}

void skipped_from_json(const JsonReader& r, std::int64_t total, ImplReport& i) {
  const json& skipped = array(r, "skipped", kMaxEntries);
  for (std::size_t k = 0; k < skipped.size(); ++k) {
    const JsonReader e = entry(skipped, k, r.name("skipped"));
    const std::string why = e.string("reason");
    if (i.skipped.count(why)) throw ConfigError(e.name("reason"), "repeated: " + why);
    i.skipped[why] = static_cast<int>(e.integer("cases", 1, total));
  }
}

void budget_terms_from_json(const JsonReader& r, ImplReport& i) {
  const json& terms = array(r, "budgetTerms", kBudgetTermCount);
  if (terms.size() != kBudgetTermCount)
    throw ConfigError(r.name("budgetTerms"), "must have " + std::to_string(kBudgetTermCount) + " entries");
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const JsonReader e = entry(terms, k, r.name("budgetTerms"));
    i.elements_by_term[k] = e.integer("elements", 0, std::numeric_limits<std::int64_t>::max());
    i.worst_by_term[k] = read_real(e, "worstUnits");
  }
}

void ulps_by_position_from_json(const JsonReader& r, std::int64_t total, ImplReport& i) {
  const json& ulps = array(r, "ulpsByPosition", kMaxEntries);
  for (std::size_t k = 0; k < ulps.size(); ++k) {
    const JsonReader e = entry(ulps, k, r.name("ulpsByPosition"));
    const int dtype = static_cast<int>(e.integer("dtype", 0, 255));
    const std::int64_t pos = e.integer("position", 0, std::numeric_limits<std::int64_t>::max());
    auto& points = i.ulps_by_position[dtype];
    if (points.count(pos)) throw ConfigError(e.name("position"), "repeated: " + std::to_string(pos));
    points[pos] = {read_real(e, "worstUlps"), static_cast<int>(e.integer("caseIndex", 0, total - 1)),
                   read_real(e, "worstRoundedUlps")};
  }
}

ImplReport impl_from_json(const JsonReader& r, std::int64_t total) {
  ImplReport i;
  i.name = r.string("name");
  if (i.name.empty()) throw ConfigError(r.name("name"), "must not be empty");
  i.reproduce_args = r.string("reproduceArgs");
  i.policy = r.string("policy");
  families_from_json(r, total, i);
  properties_from_json(r, total, i);
  position_bins_from_json(r, i);
  curve_from_json(r, total, i);
  failures_from_json(r, total, i);
  skipped_from_json(r, total, i);
  i.redrawn = static_cast<int>(r.integer("redrawn", 0, total));
  budget_terms_from_json(r, i);
  ulps_by_position_from_json(r, total, i);
  return i;
}

}  // namespace

std::string report_to_json(const GateReport& r) {
  json rep{{"suite", suite_name(r.suite)},
           {"seed", r.seed},
           {"cases", r.cases},
           {"plannedCases", r.planned_cases},
           {"totalCases", r.total_cases},
           {"minJudged", r.min_judged},
           {"isolated", r.isolated},
           {"stoppedEarly", r.stopped_early},
           {"interrupted", r.interrupted},
           {"shardIndex", r.shard_index},
           {"shardCount", r.shard_count},
           {"configPath", r.config_path},
           {"seconds", r.seconds}};
  json& impls = rep["implementations"] = json::array();
  for (const ImplReport& i : r.impls) impls.push_back(impl_to_json(i));
  const json doc{{"format", kGateReportFormat},
                 {"version", kGateReportVersion},
                 {"sha256", sha256_hex(rep.dump())},
                 {"report", rep}};
  return doc.dump(1) + "\n";
}

GateReport report_from_json(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw ConfigError("$", std::string("not valid JSON (truncated file?): ") + e.what());
  }
  if (!doc.is_object()) throw ConfigError("$", "must be a JSON object");
  const JsonReader top(doc, "$.");
  if (top.string("format") != kGateReportFormat)
    throw ConfigError("$.format", std::string("must be \"") + kGateReportFormat + "\" (not a ropecheck gate report)");
  top.integer("version", kGateReportVersion, kGateReportVersion);
  const json& rep = top.at("report");
  if (!rep.is_object()) throw ConfigError("$.report", "must be an object");
  if (top.string("sha256") != sha256_hex(rep.dump()))
    throw ConfigError("$.sha256", "does not match the report (a corrupted or edited file)");
  return report_from_json_value(rep, "$.report");
}

GateReport report_from_json_value(const json& rep, const std::string& path) {
  if (!rep.is_object()) throw ConfigError(path, "must be an object");
  const JsonReader r(rep, path + ".");
  GateReport g;
  try {
    if (!parse_suite(r.string("suite"), &g.suite)) throw ConfigError(r.name("suite"), "must be quick, standard or exhaustive");
    const json& seed = r.at("seed");
    if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<std::int64_t>() >= 0))
      throw ConfigError(r.name("seed"), "must be an unsigned 64-bit integer");
    g.seed = seed.get<std::uint64_t>();
    g.total_cases = static_cast<int>(r.integer("totalCases", 1, kMaxCases));
    g.shard_count = static_cast<int>(r.integer("shardCount", 1, g.total_cases));
    g.shard_index = static_cast<int>(r.integer("shardIndex", 1, g.shard_count));
    g.planned_cases = static_cast<int>(r.integer("plannedCases", 0, g.total_cases));
    g.cases = static_cast<int>(r.integer("cases", 0, g.planned_cases));
    g.min_judged = static_cast<int>(r.integer("minJudged", 1, kMaxCases));
    g.isolated = r.boolean("isolated");
    g.stopped_early = r.boolean("stoppedEarly");
    g.interrupted = r.string("interrupted");
    g.config_path = r.string("configPath");
    g.seconds = r.number("seconds");
    if (!(g.seconds >= 0) || !std::isfinite(g.seconds)) throw ConfigError(r.name("seconds"), "must be finite and >= 0");
    const json& impls = array(r, "implementations", kMaxEntries);
    for (std::size_t k = 0; k < impls.size(); ++k)
      g.impls.push_back(impl_from_json(entry(impls, k, r.name("implementations")), g.total_cases));
    // The floor is not stored: it follows from the counts.
    apply_verdict_floor(g);
  } catch (const json::exception& e) {  // a type no check above anticipated
    throw ConfigError(path, std::string("unexpected value: ") + e.what());
  }
  return g;
}

}  // namespace ropecheck
