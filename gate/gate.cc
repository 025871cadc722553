#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/interrupt.h"
#include "gate/gate.h"
#include "properties/property.h"

namespace ropecheck {

bool GateReport::passed() const {
  if (!interrupted.empty() || impls.empty()) return false;
  for (const auto& i : impls)
    if (!i.passed()) return false;
  return true;
}

const std::string* ImplReport::floor_failure(const std::string& property) const {
  for (const auto& [p, why] : under_floor)
    if (p == property) return &why;
  return nullptr;
}

const char* const kNoIsolationNote =
    "Isolation: off (--no-isolation). Kernels ran inside ropecheck's own process: a crash, hang or stray write "
    "there ends or corrupts the run, a thread or process a kernel leaves running is not detected, and _exit() "
    "inside a kernel ends the run without a report. Writes into inputs, exit() and crashes are still named. "
    "See docs/RELIABILITY.md.";

std::string reproduce_command(const std::string& impl, Suite suite, std::uint64_t seed, int index,
                              const std::string& property, const std::string& config_path) {
  std::string s = "ropecheck check --impl " + impl + " --suite " + suite_name(suite) + " --seed " +
                  std::to_string(seed) + " --case " + std::to_string(index);
  if (!property.empty()) s += " --property " + property;
  if (!config_path.empty()) s += " --config " + config_path;
  return s;
}

namespace {

std::vector<const prop::Property*> selected_properties(const GateOptions& o) {
  std::vector<const prop::Property*> out;
  for (const prop::Property& p : prop::kernel_properties()) {
    bool want = o.properties.empty();
    for (const auto& n : o.properties) want |= n == p.name;
    if (want) out.push_back(&p);
  }
  return out;
}

int curve_bucket(std::int64_t p) {
  const double a = std::fabs(static_cast<double>(p));
  return static_cast<int>(std::floor(std::log2(a + 1) * 16));
}

void add_bins(ImplReport& rep, const CaseOutcome& out, const Case& c) {
  for (int t = 0; t < kBudgetTermCount; ++t) {
    rep.elements_by_term[t] += out.elements_by_term[t];
    rep.worst_by_term[t] = std::max(rep.worst_by_term[t], out.worst_by_term[t]);
  }
  for (const PositionPoint& pt : out.points) {
    UlpsAt& u = rep.ulps_by_position[c.dtype][abs_position(pt.position)];
    if (pt.worst_pair_ulps >= u.worst_ulps) u = {pt.worst_pair_ulps, c.index};
  }
  for (const PositionPoint& pt : out.points) {
    PositionPoint& c = rep.curve[curve_bucket(pt.position)];
    if (pt.worst_units >= c.worst_units) {
      c.worst_units = pt.worst_units;
      c.position = pt.position;
    }
    c.worst_ulps = std::max(c.worst_ulps, pt.worst_ulps);
  }
  for (int b = 0; b < kPositionBins; ++b) {
    rep.bins[b].elements += out.bins[b].elements;
    rep.bins[b].worst_units = std::max(rep.bins[b].worst_units, out.bins[b].worst_units);
    rep.bins[b].worst_ulps = std::max(rep.bins[b].worst_ulps, out.bins[b].worst_ulps);
  }
}

}  // namespace

GateReport run_gate(const GateOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<const prop::Property*> props = selected_properties(o);
  GateReport r;
  r.suite = o.suite;
  r.seed = o.seed;
  r.min_judged = o.min_judged;
  r.isolated = o.isolated;
  for (const auto* impl : o.impls) {
    ImplReport rep;
    rep.name = impl->name;
    if (o.reproduce_args.count(rep.name)) rep.reproduce_args = " " + o.reproduce_args.at(rep.name);
    for (const auto* p : props) {
      PropertyStats s;
      s.not_applicable = prop::not_applicable(*p, *impl);
      s.applicable = s.not_applicable.empty();
      rep.properties.emplace_back(p->name, s);
    }
    r.impls.push_back(std::move(rep));
  }
  const int total = o.cases ? *o.cases : suite_size(o.suite);
  const int first = o.only_case ? *o.only_case : 0;
  const int last = o.only_case ? *o.only_case + 1 : total;
  r.planned_cases = last - first;
  bool stopped_early = false;
  for (int idx = first; idx < last && r.interrupted.empty(); ++idx) {
    Case c = make_case(o.suite, o.seed, idx);
    if (o.config) {
      apply_config(*o.config, &c.freq, &c.shape);
      if (o.config->layout) c.layout = *o.config->layout;
    }
    ++r.cases;
    // Inputs and the exact result are built once per case and shared by
    // every property and implementation.
    prop::CaseContext ctx(c);
    for (std::size_t k = 0; k < o.impls.size(); ++k) {
      const ropecheck_impl_t& impl = *o.impls[k];
      ImplReport& rep = r.impls[k];
      for (std::size_t pi = 0; pi < props.size(); ++pi) {
        const prop::Property& p = *props[pi];
        PropertyStats& ps = rep.properties[pi].second;
        if (!ps.applicable) continue;
        const prop::PropertyResult res = p.check(impl, ctx);
        if (interrupt_signal()) {  // the call was cut short: no verdict on it
          r.interrupted = interrupt_name();
          break;
        }
        ++ps.cases;
        if (res.judged) {  // the judge's per-family and per-position figures
          const CaseOutcome& out = *res.judged;
          FamilyStats& f = rep.families[c.family()];
          ++f.cases;
          if (out.outcome == Outcome::kSkipped) {
            ++f.skipped;
            ++rep.skipped[out.message];
          } else {
            f.worst_units = std::max(f.worst_units, out.worst_units);
            f.worst_ulps = std::max(f.worst_ulps, out.worst_ulps);
            add_bins(rep, out, c);
            ++(out.outcome == Outcome::kPass ? f.passed : f.failed);
          }
        }
        switch (res.outcome) {
          case Outcome::kSkipped:
            ++ps.skipped;
            ps.declined += res.declined;
            break;
          case Outcome::kPass:
            ++ps.passed;
            ps.worst_units = std::max(ps.worst_units, res.worst_units);
            break;
          case Outcome::kFail:
            ++ps.failed;
            ps.worst_units = std::max(ps.worst_units, res.worst_units);
            rep.failures.push_back({idx, p.name, c.family(), res.message, c.describe(),
                                    reproduce_command(rep.name, o.suite, o.seed, idx, p.name, o.config_path) +
                                        rep.reproduce_args,
                                    res.worst_units});
            break;
        }
      }
      if (!r.interrupted.empty()) break;
    }
    if (!r.interrupted.empty()) break;
    if (o.progress) o.progress(idx - first + 1, last - first);
    if (o.stop_at_first_failing_case && !r.passed()) {
      stopped_early = true;
      break;
    }
  }
  if (r.interrupted.empty() && !stopped_early)
    for (ImplReport& rep : r.impls)
      for (const auto& [name, s] : rep.properties)
        if (s.applicable && s.passed + s.failed < o.min_judged && (s.passed + s.failed > 0 || s.declined > 0))
          rep.under_floor.emplace_back(name, "judged on " + std::to_string(s.passed + s.failed) +
                                                 " case(s), fewer than --min-judged " + std::to_string(o.min_judged) +
                                                 " (" + std::to_string(s.declined) + " of " + std::to_string(s.cases) +
                                                 " outside its declared capabilities): no verdict to pass");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace ropecheck
