// SPDX-License-Identifier: MIT
// The definitions of speed/bench_json.h.
#include "speed/bench_json.h"

#include <cmath>

#include "core/config/json_reader.h"
#include "core/io/sha256.h"
#include "reference/freq_spec.h"
#include "ropecheck/names.h"

namespace ropecheck::speed {
namespace {

using nlohmann::json;
using ref::ConfigError;

// Far above any real run: a malformed file cannot make the reader allocate
// without bound.
constexpr std::size_t kMaxRows = 1 << 16;
constexpr std::size_t kMaxCalls = 1 << 20;
constexpr std::int64_t kMaxCount = std::int64_t{1} << 40;

json series_to_json(const SeriesStats& s) {
  return json{{"bytes", s.bytes},  {"seconds", s.seconds}, {"median", s.median}, {"min", s.min},
              {"q1", s.q1},        {"q3", s.q3},           {"gbps", s.gbps()}};
}

json row_to_json(const BenchRow& r) {
  return json{{"implementation", r.impl},
              {"model", r.model},
              {"step", step_name(r.step)},
              {"tokens", r.tokens},
              {"qHeads", r.q_heads},
              {"kvHeads", r.kv_heads},
              {"headDim", r.head_dim},
              {"rotaryDim", r.rotary_dim},
              {"scheme", r.scheme},
              {"dtype", std::string(dtype_name(r.choice.dtype))},
              {"layout", std::string(layout_name(r.choice.layout))},
              {"inPlace", r.choice.in_place},
              {"positions", r.choice.position_type == ROPECHECK_INDEX_INT32 ? "int32" : "int64"},
              {"threads", r.choice.threads},
              {"status", row_status_name(r.status)},
              {"reason", r.reason},
              {"judged", r.judged},
              {"fasterThanRoofline", r.faster_than_roofline},
              {"ratioToCopy", r.ratio_to(r.copy)},
              {"ratioToRmw", r.ratio_to(r.rmw)},
              {"kernel", series_to_json(r.kernel)},
              {"copy", series_to_json(r.copy)},
              {"rmw", series_to_json(r.rmw)}};
}

double finite_at_least_zero(const JsonReader& r, const char* key) {
  const double v = r.number(key);
  if (!(v >= 0) || !std::isfinite(v)) throw ConfigError(r.name(key), "must be finite and >= 0");
  return v;
}

SeriesStats series_from_json(const json& v, const std::string& path) {
  if (!v.is_object()) throw ConfigError(path, "must be an object");
  const JsonReader r(v, path + ".");
  SeriesStats s;
  s.bytes = finite_at_least_zero(r, "bytes");
  const json& secs = r.at("seconds");
  if (!secs.is_array()) throw ConfigError(r.name("seconds"), "must be an array");
  if (secs.size() > kMaxCalls)
    throw ConfigError(r.name("seconds"), "must have at most " + std::to_string(kMaxCalls) + " entries");
  for (std::size_t i = 0; i < secs.size(); ++i) {
    const json& t = secs[i];
    if (!t.is_number() || !(t.get<double>() > 0) || !std::isfinite(t.get<double>()))
      throw ConfigError(r.name("seconds") + "[" + std::to_string(i) + "]", "must be a finite number > 0");
    s.seconds.push_back(t.get<double>());
  }
  s.summarize();  // the statistics are recomputed, never trusted
  return s;
}

BenchRow row_from_json(const json& v, const std::string& path) {
  if (!v.is_object()) throw ConfigError(path, "must be an object");
  const JsonReader r(v, path + ".");
  BenchRow row;
  row.impl = r.string("implementation");
  row.model = r.string("model");
  const std::string step = r.string("step");
  if (step == "prefill") row.step = Step::kPrefill;
  else if (step == "decode") row.step = Step::kDecode;
  else throw ConfigError(r.name("step"), "must be prefill or decode (got '" + step + "')");
  row.tokens = r.integer("tokens", 1, kMaxCount);
  row.q_heads = static_cast<int>(r.integer("qHeads", 1, 1 << 20));
  row.kv_heads = static_cast<int>(r.integer("kvHeads", 0, 1 << 20));
  row.head_dim = static_cast<int>(r.integer("headDim", 1, 1 << 20));
  row.rotary_dim = static_cast<int>(r.integer("rotaryDim", 0, row.head_dim));
  row.scheme = r.string("scheme");
  if (!parse_dtype(r.string("dtype"), &row.choice.dtype)) throw ConfigError(r.name("dtype"), "must be f32, f16 or bf16");
  if (!parse_layout(r.string("layout"), &row.choice.layout))
    throw ConfigError(r.name("layout"), "must be interleaved or half_split");
  row.choice.in_place = r.boolean("inPlace");
  const std::string pos = r.string("positions");
  if (pos != "int32" && pos != "int64") throw ConfigError(r.name("positions"), "must be int32 or int64");
  row.choice.position_type = pos == "int32" ? ROPECHECK_INDEX_INT32 : ROPECHECK_INDEX_INT64;
  row.choice.threads = static_cast<int>(r.integer("threads", 1, 256));
  const std::string status = r.string("status");
  if (status == "timed") row.status = RowStatus::kTimed;
  else if (status == "failed") row.status = RowStatus::kFailed;
  else if (status == "skipped") row.status = RowStatus::kSkipped;
  else throw ConfigError(r.name("status"), "must be timed, failed or skipped (got '" + status + "')");
  row.reason = r.string("reason");
  row.judged = static_cast<int>(r.integer("judged", 0, static_cast<std::int64_t>(kMaxCalls)));
  row.faster_than_roofline = r.boolean("fasterThanRoofline");
  row.kernel = series_from_json(r.at("kernel"), r.name("kernel"));
  row.copy = series_from_json(r.at("copy"), r.name("copy"));
  row.rmw = series_from_json(r.at("rmw"), r.name("rmw"));
  if (row.status == RowStatus::kTimed && (row.kernel.empty() || row.copy.empty() || row.rmw.empty()))
    throw ConfigError(path, "a timed row must hold the times of the kernel and both baselines");
  return row;
}

}  // namespace

std::string bench_to_json(const BenchReport& r) {
  json rep{{"machine", r.machine},
           {"date", r.date},
           {"loadBefore", r.load_before},
           {"loadAfter", r.load_after},
           {"caches", r.caches},
           {"repetitions", r.repetitions},
           {"judgedPerRow", r.judged_per_row},
           {"inputs", r.inputs},
           {"isolated", r.isolated},
           {"seed", r.seed},
           {"interrupted", r.interrupted},
           {"seconds", r.seconds}};
  json& rows = rep["rows"] = json::array();
  for (const BenchRow& row : r.rows) rows.push_back(row_to_json(row));
  json& fails = rep["implementationFailures"] = json::array();
  for (const auto& [name, why] : r.impl_failures) fails.push_back(json{{"implementation", name}, {"reason", why}});
  const json doc{{"format", kBenchFormat}, {"version", kBenchVersion}, {"sha256", sha256_hex(rep.dump())}, {"bench", rep}};
  return doc.dump(1) + "\n";
}

BenchReport bench_from_json(std::string_view text) {
  const json doc = parse_json_strictly(text);
  if (!doc.is_object()) throw ConfigError("$", "must be a JSON object");
  const JsonReader top(doc, "$.");
  if (top.string("format") != kBenchFormat)
    throw ConfigError("$.format", std::string("must be \"") + kBenchFormat + "\" (not a ropecheck bench report)");
  top.integer("version", kBenchVersion, kBenchVersion);
  const json& rep = top.at("bench");
  if (!rep.is_object()) throw ConfigError("$.bench", "must be an object");
  if (top.string("sha256") != sha256_hex(rep.dump()))
    throw ConfigError("$.sha256", "does not match the report (a corrupted or edited file)");
  const JsonReader r(rep, "$.bench.");
  BenchReport b;
  try {
    b.machine = r.string("machine");
    b.date = r.string("date");
    b.load_before = r.string("loadBefore");
    b.load_after = r.string("loadAfter");
    b.caches = r.string("caches");
    if (b.caches != "warm" && b.caches != "cold") throw ConfigError(r.name("caches"), "must be warm or cold");
    b.repetitions = static_cast<int>(r.integer("repetitions", 1, static_cast<std::int64_t>(kMaxCalls)));
    b.judged_per_row = static_cast<int>(r.integer("judgedPerRow", 0, b.repetitions));
    b.isolated = r.boolean("isolated");
    if (rep.contains("inputs")) b.inputs = r.string("inputs");  // reports before #49 do not say
    const json& seed = r.at("seed");
    if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<std::int64_t>() >= 0))
      throw ConfigError(r.name("seed"), "must be an unsigned 64-bit integer");
    b.seed = seed.get<std::uint64_t>();
    b.interrupted = r.string("interrupted");
    b.seconds = finite_at_least_zero(r, "seconds");
    const json& rows = r.at("rows");
    if (!rows.is_array()) throw ConfigError(r.name("rows"), "must be an array");
    if (rows.size() > kMaxRows) throw ConfigError(r.name("rows"), "must have at most " + std::to_string(kMaxRows) + " entries");
    for (std::size_t i = 0; i < rows.size(); ++i)
      b.rows.push_back(row_from_json(rows[i], r.name("rows") + "[" + std::to_string(i) + "]"));
    const json& fails = r.at("implementationFailures");
    if (!fails.is_array() || fails.size() > kMaxRows)
      throw ConfigError(r.name("implementationFailures"), "must be an array of at most " + std::to_string(kMaxRows));
    for (std::size_t i = 0; i < fails.size(); ++i) {
      if (!fails[i].is_object()) throw ConfigError(r.name("implementationFailures"), "entries must be objects");
      const JsonReader f(fails[i], r.name("implementationFailures") + "[" + std::to_string(i) + "].");
      b.impl_failures.emplace_back(f.string("implementation"), f.string("reason"));
    }
  } catch (const json::exception& e) {  // a type no check above anticipated
    throw ConfigError("$.bench", std::string("unexpected value: ") + e.what());
  }
  return b;
}

}  // namespace ropecheck::speed
