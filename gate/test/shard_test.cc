// SPDX-License-Identifier: MIT
// `check --shard i/n` and `--jobs N`: the union of n shards, each written as
// JSON and read back, merges into exactly the unsharded run (the same
// cases, verdicts, tables, failures and JUnit), and N threads give the same
// report as one. Over a passing kernel, an interleaved-only one (skips) and two
// mutants of the bug catalogue (failures), so every aggregate is exercised.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>
#include <sstream>

#include "gate/gate.h"
#include "gate/report_json.h"
#include "impls/registry.h"
#include "mutants/mutant_kernel.h"

namespace ropecheck {
namespace {

constexpr int kCases = 48;  // the quick suite's first cases: every scheme, failures and skips

std::vector<const ropecheck_impl_t*> impls() {
  std::vector<const ropecheck_impl_t*> v;
  for (const char* name : {"scalar_naive", "scalar_complex"})
    for (const ropecheck_impl_t* i : builtin_impls())
      if (std::string(i->name) == name) v.push_back(i);
  v.push_back(mutant::find_mutant("mutant_angle_in_bf16"));
  v.push_back(mutant::find_mutant("mutant_layout_swapped_above_4096"));
  for (const auto* i : v) EXPECT_NE(i, nullptr);
  EXPECT_EQ(v.size(), 4u);
  return v;
}

GateReport run_uncached(int shard, int shards, int jobs) {
  GateOptions o;
  o.suite = Suite::kQuick;
  o.seed = 3;
  o.cases = kCases;
  o.impls = impls();
  o.shard_index = shard;
  o.shard_count = shards;
  o.jobs = jobs;
  return run_gate(o);
}

// Each (shard, shards, jobs) run once for all the tests below: a run is a
// pure function of them (what AnyNumberOfJobsGivesTheSameReport holds), and
// the runs are most of this file's time.
GateReport run(int shard, int shards, int jobs) {
  static std::map<std::tuple<int, int, int>, GateReport> done;
  const auto key = std::make_tuple(shard, shards, jobs);
  auto it = done.find(key);
  if (it == done.end()) it = done.emplace(key, run_uncached(shard, shards, jobs)).first;
  return it->second;
}

// Everything a reader sees, time excepted.
std::string rendered(GateReport r) {
  r.seconds = 0;
  std::ostringstream os;
  print_summary(r, os);
  print_failures(r, os, 1000);
  print_worst_failures(r, os);
  print_slack(r, os);
  print_within(r, 1, os);
  write_junit(r, os);
  // Every field, the ones no table prints included (skip reasons, declined
  // counts, budget terms, ulps per position, the verdict floor's inputs).
  os << report_to_json(r);
  return os.str();
}

// "" when a and b are equal, else their first differing line, both sides.
std::string first_differing_line(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(sa, la)), more_b = static_cast<bool>(std::getline(sb, lb));
    if (!more_a && !more_b) return {};
    if (more_a != more_b || la != lb)
      return "line " + std::to_string(line) + ": '" + (more_a ? la : "<end>") + "' vs '" + (more_b ? lb : "<end>") + "'";
  }
}

TEST(Shards, TheUnionOfNShardsIsExactlyTheUnshardedRun) {
  const GateReport whole = run(1, 1, 1);
  ASSERT_FALSE(whole.passed()) << "the mutants must fail for the failure lists to be compared";
  for (int n : {2, 5}) {
    std::vector<GateReport> shards;
    std::set<int> seen;
    int cases = 0;
    for (int i = n; i >= 1; --i) {  // any order
      // Shards of 5 alternate one and two threads: sharding and jobs compose.
      const GateReport s = report_from_json(report_to_json(run(i, n, n == 2 ? 1 : 1 + i % 2)));
      cases += s.cases;
      for (const auto& imp : s.impls)
        for (const auto& f : imp.failures) {
          EXPECT_EQ(f.case_index % n, i - 1) << "case " << f.case_index << " in shard " << i << "/" << n;
          seen.insert(f.case_index);
        }
      shards.push_back(s);
    }
    EXPECT_EQ(cases, kCases) << n << " shards";
    const GateReport merged = merge_reports(shards);
    EXPECT_EQ(merged.cases, whole.cases);
    // Not EXPECT_EQ: gtest's diff of two long texts needs memory quadratic
    // in their lines (it took 22 GB here); the first differing line says it.
    EXPECT_EQ(first_differing_line(rendered(merged), rendered(whole)), "") << n << " shards";
    // The same verdict per implementation and the same failing cases.
    for (std::size_t k = 0; k < whole.impls.size(); ++k) {
      ASSERT_EQ(merged.impls[k].failures.size(), whole.impls[k].failures.size());
      for (std::size_t f = 0; f < whole.impls[k].failures.size(); ++f) {
        EXPECT_EQ(merged.impls[k].failures[f].case_index, whole.impls[k].failures[f].case_index);
        EXPECT_EQ(merged.impls[k].failures[f].reproduce, whole.impls[k].failures[f].reproduce);
      }
    }
  }
}

TEST(Shards, AnyNumberOfJobsGivesTheSameReport) {
  // More threads than this machine's cores, and than a shard of 5 has cases
  // left of some kinds: the order a report is built in is the cases', not
  // the threads'.
  const std::string one = rendered(run(1, 1, 1));
  EXPECT_EQ(first_differing_line(rendered(run(1, 1, 5)), one), "");
}

TEST(Shards, MismatchedOrIncompleteShardsAreRefusedNamingTheField) {
  const GateReport a = run(1, 2, 1), b = run(2, 2, 1);
  const auto refused = [](const std::vector<GateReport>& s, const std::string& field) {
    try {
      merge_reports(s);
      ADD_FAILURE() << "accepted; expected an error about " << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  refused({a}, "shard.count");
  refused({a, a}, "shard.index");
  GateReport other_seed = b;
  other_seed.seed = 4;
  refused({a, other_seed}, "seed");
  GateReport other_impl = b;
  other_impl.impls[0].name = "another";
  refused({a, other_impl}, "implementations[0].name");
  // Every field of the run's header (gate/run_header.h), each named.
  const std::vector<std::pair<std::string, void (*)(RunHeader&)>> changes = {
      {"suite", [](RunHeader& h) { h.suite = Suite::kStandard; }},
      {"total_cases", [](RunHeader& h) { h.total_cases += 1; }},
      {"config", [](RunHeader& h) { h.config_path = "other.json"; }},
      {"min_judged", [](RunHeader& h) { h.min_judged += 1; }},
      {"isolated", [](RunHeader& h) { h.isolated = !h.isolated; }},
  };
  for (const auto& [field, change] : changes) {
    GateReport c = b;
    change(c);
    refused({a, c}, field);
    EXPECT_EQ(first_difference(a, c), field);
  }
  EXPECT_EQ(first_difference(a, b), "");
}

TEST(ShardReports, CorruptedOrMalformedFilesAreRefusedNamingTheField) {
  const std::string good = report_to_json(run(1, 2, 1));
  EXPECT_NO_THROW(report_from_json(good));
  const auto refused = [](const std::string& text, const std::string& field) {
    try {
      report_from_json(text);
      ADD_FAILURE() << "accepted; expected an error about " << field;
    } catch (const ref::ConfigError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  };
  refused(good.substr(0, good.size() / 2), "$");
  std::string edited = good;
  edited.replace(edited.find("\"passed\": "), 11, "\"passed\": 9");
  refused(edited, "$.sha256");
  refused("{\"format\": \"something else\"}", "$.format");
  // Past the checksum: a count that does not add up, a negative one, an
  // unknown suite.
  nlohmann::json doc = nlohmann::json::parse(good);
  nlohmann::json rep = doc["report"];
  rep["implementations"][0]["families"][0]["passed"] = 1000;
  EXPECT_THROW(report_from_json_value(rep, "$.report"), ref::ConfigError);
  rep = doc["report"];
  rep["implementations"][1]["bins"][2]["elements"] = -1;
  try {
    report_from_json_value(rep, "$.report");
    ADD_FAILURE() << "negative count accepted";
  } catch (const ref::ConfigError& e) {
    EXPECT_EQ(e.field(), "$.report.implementations[1].bins[2].elements") << e.what();
  }
  rep = doc["report"];
  rep["suite"] = "huge";
  EXPECT_THROW(report_from_json_value(rep, "$.report"), ref::ConfigError);
}

// The verdict floor holds for the whole run: a kernel that declines every
// case fails the merged report (and each shard), with the reason.
TEST(Shards, AKernelThatDeclinesEverythingFailsTheMergedRun) {
  std::vector<GateReport> shards;
  for (int i = 1; i <= 2; ++i) {
    GateOptions o;
    o.suite = Suite::kQuick;
    o.seed = 3;
    o.cases = 8;
    o.impls = {mutant::misbehaving_impl(mutant::Misbehaviour::declines_everything)};
    o.shard_index = i;
    o.shard_count = 2;
    shards.push_back(report_from_json(report_to_json(run_gate(o))));
    EXPECT_FALSE(shards.back().passed()) << "shard " << i;
  }
  const GateReport merged = merge_reports(shards);
  EXPECT_FALSE(merged.passed());
  ASSERT_FALSE(merged.impls.at(0).under_floor.empty());
  EXPECT_NE(merged.impls[0].under_floor[0].second.find("fewer than --min-judged 1"), std::string::npos)
      << merged.impls[0].under_floor[0].second;
}

}  // namespace
}  // namespace ropecheck
