// SPDX-License-Identifier: MIT
// Joining the reports of `check --shard i/n` into the report of the whole
// run. Every aggregate of the gate is a sum or a maximum, and the one
// order-dependent choice (which point of a curve bucket is kept on a tie)
// carries its case index, so the union of the shards gives exactly the
// unsharded tables, failures and verdicts.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "gate/gate.h"
#include "ropecheck/float_compare.h"

namespace ropecheck {
namespace {

[[noreturn]] void mismatch(const std::string& field, const std::string& why) {
  throw std::invalid_argument("shard reports: " + field + ": " + why);
}

template <class T>
void require_same(const std::string& field, const T& a, const T& b, int shard) {
  if (!(a == b)) mismatch(field, "differs in the report of shard " + std::to_string(shard) + " from shard 1's");
}

// An empty report with the first shard's shape: names, properties and
// their applicability, no counts.
GateReport empty_like(const GateReport& s) {
  GateReport m;
  static_cast<RunHeader&>(m) = s;
  m.shard_count = 1;  // the whole run's report, as one unsharded run gives it
  for (const ImplReport& i : s.impls) {
    ImplReport e;
    e.name = i.name;
    e.reproduce_args = i.reproduce_args;
    e.policy = i.policy;
    for (const auto& [name, ps] : i.properties) {
      PropertyStats z;
      z.applicable = ps.applicable;
      z.not_applicable = ps.not_applicable;
      e.properties.emplace_back(name, z);
    }
    m.impls.push_back(std::move(e));
  }
  return m;
}

// The counts every per-family and per-property row carries.
template <class Stats>
void add_counts(Stats& t, const Stats& f) {
  t.cases += f.cases;
  t.passed += f.passed;
  t.failed += f.failed;
  t.skipped += f.skipped;
  t.worst_units = std::max(t.worst_units, f.worst_units);
}

void add(ImplReport& m, const ImplReport& s) {
  for (const auto& [mine, theirs] : {std::pair{&m.families, &s.families}, std::pair{&m.shapes, &s.shapes},
                                    std::pair{&m.fused, &s.fused}})
    for (const auto& [family, f] : *theirs) {
      FamilyStats& t = (*mine)[family];
      add_counts(t, f);
      t.sampled += f.sampled;
      t.worst_ulps = std::max(t.worst_ulps, f.worst_ulps);
    }
  for (std::size_t p = 0; p < s.properties.size(); ++p) {
    PropertyStats& t = m.properties[p].second;
    const PropertyStats& f = s.properties[p].second;
    add_counts(t, f);
    t.declined += f.declined;
  }
  for (const auto& [why, n] : s.skipped) m.skipped[why] += n;
  m.redrawn += s.redrawn;
  for (int t = 0; t < kBudgetTermCount; ++t) {
    m.elements_by_term[t] += s.elements_by_term[t];
    m.worst_by_term[t] = std::max(m.worst_by_term[t], s.worst_by_term[t]);
  }
  // Ties go to the later case, as in run_gate's add_bins.
  for (const auto& [dtype, points] : s.ulps_by_position)
    for (const auto& [pos, u] : points) {
      UlpsAt& t = m.ulps_by_position[dtype][pos];
      const double rounded = std::max(t.worst_rounded_ulps, u.worst_rounded_ulps);
      if (u.worst_ulps > t.worst_ulps || (exactly_equal(u.worst_ulps, t.worst_ulps) && u.case_index > t.case_index))
        t = u;
      t.worst_rounded_ulps = rounded;
    }
  for (int b = 0; b < kPositionBins; ++b) {
    m.bins[b].elements += s.bins[b].elements;
    m.bins[b].worst_units = std::max(m.bins[b].worst_units, s.bins[b].worst_units);
    m.bins[b].worst_ulps = std::max(m.bins[b].worst_ulps, s.bins[b].worst_ulps);
  }
  // The unsharded run keeps a bucket's worst point, ties going to the later
  // case (run_gate's add_bins): the same rule on (units, case index).
  for (const auto& [bucket, p] : s.curve) {
    CurvePoint& t = m.curve[bucket];
    if (p.worst_units > t.worst_units || (exactly_equal(p.worst_units, t.worst_units) && p.case_index > t.case_index)) {
      t.worst_units = p.worst_units;
      t.position = p.position;
      t.case_index = p.case_index;
    }
    t.worst_ulps = std::max(t.worst_ulps, p.worst_ulps);
  }
  m.failures.insert(m.failures.end(), s.failures.begin(), s.failures.end());
}

}  // namespace

GateReport merge_reports(const std::vector<GateReport>& shards) {
  if (shards.empty()) mismatch("shards", "no report given");
  const GateReport& first = shards.front();
  const int n = first.shard_count;
  if (static_cast<int>(shards.size()) != n)
    mismatch("shard.count", "the reports are of a run split in " + std::to_string(n) + " shards; " +
                                std::to_string(shards.size()) + " given");
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (std::size_t k = 0; k < shards.size(); ++k) {
    const GateReport& s = shards[k];
    const int shard = static_cast<int>(k) + 1;
    if (const std::string field = first_difference(first, s); !field.empty())
      mismatch(field, "differs in the report of shard " + std::to_string(shard) + " from shard 1's");
    require_same("implementations", s.impls.size(), first.impls.size(), shard);
    for (std::size_t i = 0; i < s.impls.size(); ++i) {
      require_same("implementations[" + std::to_string(i) + "].name", s.impls[i].name, first.impls[i].name, shard);
      require_same("implementations[" + std::to_string(i) + "].properties", s.impls[i].properties.size(),
                   first.impls[i].properties.size(), shard);
      require_same("implementations[" + std::to_string(i) + "].reproduce_args", s.impls[i].reproduce_args,
                   first.impls[i].reproduce_args, shard);
      require_same("implementations[" + std::to_string(i) + "].policy", s.impls[i].policy, first.impls[i].policy,
                   shard);
      for (std::size_t p = 0; p < s.impls[i].properties.size(); ++p) {
        const std::string f = "implementations[" + std::to_string(i) + "].properties[" + std::to_string(p) + "]";
        require_same(f + ".name", s.impls[i].properties[p].first, first.impls[i].properties[p].first, shard);
        require_same(f + ".applicable", s.impls[i].properties[p].second.applicable,
                     first.impls[i].properties[p].second.applicable, shard);
      }
    }
    if (s.shard_index < 1 || s.shard_index > n) mismatch("shard.index", "must be in [1, " + std::to_string(n) + "]");
    if (seen[static_cast<std::size_t>(s.shard_index - 1)]++)
      mismatch("shard.index", "shard " + std::to_string(s.shard_index) + "/" + std::to_string(n) + " given twice");
  }
  GateReport m = empty_like(first);
  for (const GateReport& s : shards) {
    m.cases += s.cases;
    m.planned_cases += s.planned_cases;
    m.stopped_early = m.stopped_early || s.stopped_early;
    if (m.interrupted.empty()) m.interrupted = s.interrupted;  // one interrupted shard: no verdict
    m.seconds += s.seconds;
    for (std::size_t i = 0; i < s.impls.size(); ++i) add(m.impls[i], s.impls[i]);
  }
  // Failures in case order, and within a case in property order (each case
  // lies in one shard, which kept that order).
  for (ImplReport& i : m.impls)
    std::stable_sort(i.failures.begin(), i.failures.end(),
                     [](const FailureRecord& a, const FailureRecord& b) { return a.case_index < b.case_index; });
  apply_verdict_floor(m);  // over the whole run's counts, not a shard's
  return m;
}

}  // namespace ropecheck
