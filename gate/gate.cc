// SPDX-License-Identifier: MIT
// The gate (what `ropecheck check` runs): the definitions of gate/gate.h.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/isolation/interrupt.h"
#include "core/judge/conformance.h"
#include "core/isolation/isolation.h"
#include "core/parallel/ordered_parallel.h"
#include "gate/gate.h"
#include "gate/policy_text.h"

#include "core/cases/axis_cases.h"
#include "core/cases/case_fit.h"
#include "properties/property.h"
#include "ropecheck/names.h"

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

std::string reproduce_command(const RunHeader& run, const std::string& impl, int index,
                              const std::string& property) {
  std::string s = "ropecheck check --impl " + impl + " --suite " + suite_name(run.suite) + " --seed " +
                  std::to_string(run.seed) + " --case " + std::to_string(index);
  if (!property.empty()) s += " --property " + property;
  if (!run.config_path.empty()) s += " --config " + run.config_path;
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
  const int case_index = c.index;
  for (int t = 0; t < kBudgetTermCount; ++t) {
    rep.elements_by_term[t] += out.elements_by_term[t];
    rep.worst_by_term[t] = std::max(rep.worst_by_term[t], out.worst_by_term[t]);
  }
  for (const PositionPoint& pt : out.points) {
    UlpsAt& u = rep.ulps_by_position[c.dtype][abs_position(pt.position)];
    if (pt.worst_pair_ulps >= u.worst_ulps) {
      u.worst_ulps = pt.worst_pair_ulps;
      u.case_index = c.index;
    }
    u.worst_rounded_ulps = std::max(u.worst_rounded_ulps, pt.worst_ulps);
  }
  for (const PositionPoint& pt : out.points) {
    CurvePoint& c = rep.curve[curve_bucket(pt.position)];
    if (pt.worst_units >= c.worst_units) {  // points come in case order, then position order
      c.worst_units = pt.worst_units;
      c.position = pt.position;
      c.case_index = case_index;
    }
    c.worst_ulps = std::max(c.worst_ulps, pt.worst_ulps);
  }
  for (int b = 0; b < kPositionBins; ++b) {
    rep.bins[b].elements += out.bins[b].elements;
    rep.bins[b].worst_units = std::max(rep.bins[b].worst_units, out.bins[b].worst_units);
    rep.bins[b].worst_ulps = std::max(rep.bins[b].worst_ulps, out.bins[b].worst_ulps);
  }
}

// Case `idx` as the options shape it (a --config replaces scheme and shape:
// its variants in turn, so every layer type and boundary gets cases).
Case gate_case(const GateOptions& o, int idx) {
  Case c = make_case(o.suite, o.seed, idx);
  if (!o.configs.empty()) {
    keep_first_axis(&c);
    const RopeConfig& config = o.configs[static_cast<std::size_t>(idx) % o.configs.size()];
    apply_config(config, &c.freq, &c.shape);
    if (config.layout) c.layout = *config.layout;
    use_axes(config.axes, &c);  // the model's M-RoPE sections, or 1D
  }
  return c;
}

// What a redraw may follow of an implementation's declaration: a --config
// fixes the scheme (and the layout where it names one).
DeclaredChoices declared_choices(const GateOptions& o, const ropecheck_impl_t& impl) {
  DeclaredChoices d = ropecheck::declared_choices(impl);
  // Without a redraw every choice counts as declared: nothing changes.
  if (!o.redraw) {
    d.dtypes = d.layouts = d.flags = ~0u;
    d.max_position = 0;
  }
  d.redraw_scheme = o.redraw && o.redraw_schemes && o.configs.empty();
  d.redraw_layout = o.configs.empty();
  return d;
}

// One case's results, [implementation][property]; empty where the property
// does not apply. Computed on any thread: everything it touches is its own
// (the case's inputs and exact result are built once and shared by every
// property and implementation of this case only).
struct CaseRun {
  int index = 0;
  Case c;
  // Each implementation's case: c, or c redrawn within its declaration.
  std::vector<Case> impl_case;
  std::vector<char> redrawn;
  std::vector<std::vector<std::optional<prop::PropertyResult>>> results;
  // Set when SIGINT / SIGTERM cut a call short: the case is left out of the
  // report (absorb), which is then partial and marked interrupted.
  bool interrupted = false;
};

CaseRun run_case(const GateOptions& o, const std::vector<const prop::Property*>& props,
                 const std::vector<std::vector<char>>& applicable, int idx) {
  CaseRun run;
  run.index = idx;
  run.c = gate_case(o, idx);
  if (interrupt_signal()) {  // no case starts after SIGINT / SIGTERM
    run.interrupted = true;
    return run;
  }
  // One context (inputs, exact result) per distinct case: implementations
  // whose declaration keeps the suite's case share it.
  std::vector<std::unique_ptr<prop::CaseContext>> contexts;
  contexts.push_back(std::make_unique<prop::CaseContext>(run.c));
  std::vector<std::string> keys{run.c.describe()};
  run.results.resize(o.impls.size());
  run.impl_case.resize(o.impls.size());
  run.redrawn.assign(o.impls.size(), 0);
  for (std::size_t k = 0; k < o.impls.size(); ++k) {
    bool redrawn = false;
    run.impl_case[k] = fit_case(run.c, declared_choices(o, *o.impls[k]), &redrawn);
    run.redrawn[k] = redrawn;
    prop::CaseContext* ctx = contexts[0].get();
    if (redrawn) {
      const std::string key = run.impl_case[k].describe();
      std::size_t at = 0;
      while (at < keys.size() && keys[at] != key) ++at;
      if (at == keys.size()) {
        contexts.push_back(std::make_unique<prop::CaseContext>(run.impl_case[k]));
        keys.push_back(key);
      }
      ctx = contexts[at].get();
    }
    run.results[k].resize(props.size());
    for (std::size_t pi = 0; pi < props.size() && !run.interrupted; ++pi) {
      if (!applicable[k][pi]) continue;
      prop::PropertyResult res = prop::run_property(*props[pi], *o.impls[k], *ctx);
      if (interrupt_signal()) run.interrupted = true;  // the call was cut short: no verdict on it
      else run.results[k][pi] = std::move(res);
    }
    if (run.interrupted) break;
  }
  return run;
}

// Adds one case's results to the report: called in case order only.
void absorb(const GateOptions& o, const std::vector<const prop::Property*>& props, const CaseRun& run,
            GateReport* r) {
  if (run.interrupted) {  // a partial case counts as not run
    r->interrupted = interrupt_name();
    return;
  }
  ++r->cases;
  for (std::size_t k = 0; k < o.impls.size(); ++k) {
    ImplReport& rep = r->impls[k];
    const Case& c = run.impl_case[k];
    rep.redrawn += run.redrawn[k];
    for (std::size_t pi = 0; pi < props.size(); ++pi) {
      if (!run.results[k][pi]) continue;
      const prop::PropertyResult& res = *run.results[k][pi];
      PropertyStats& ps = rep.properties[pi].second;
      ++ps.cases;
      if (res.judged) {  // the judge's per-family and per-position figures
        const CaseOutcome& out = *res.judged;
        const std::string shape =
            std::string(size_class_name(c.size_class)) + " " + memory_layout_name(c.memory);
        for (FamilyStats* f : {&rep.families[c.family()], &rep.shapes[shape]}) {
          ++f->cases;
          if (out.outcome == Outcome::kSkipped) {
            ++f->skipped;
          } else {
            f->worst_units = std::max(f->worst_units, out.worst_units);
            f->worst_ulps = std::max(f->worst_ulps, out.worst_ulps);
            f->sum_units += out.sum_units;
            f->units_elements += out.units_elements;
            f->sampled += out.judged_tokens < out.tokens;
            ++(out.outcome == Outcome::kPass ? f->passed : f->failed);
          }
        }
        if (out.outcome == Outcome::kSkipped) ++rep.skipped[out.message];
        else add_bins(rep, out, c);
      }
      const std::string form = props[pi]->fused_form ? props[pi]->fused_form(*o.impls[k], c) : std::string();
      if (!form.empty()) {
        FamilyStats& f = rep.fused[form];
        ++f.cases;
        if (res.outcome == Outcome::kSkipped) {
          ++f.skipped;
        } else {
          ++(res.outcome == Outcome::kPass ? f.passed : f.failed);
          f.worst_units = std::max(f.worst_units, res.worst_units);
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
          rep.failures.push_back({run.index, props[pi]->name, c.family(), res.message, c.describe(),
                                  o.reproduce_environment +
                                      reproduce_command(*r, rep.name, run.index, props[pi]->name) +
                                      rep.reproduce_args,
                                  res.worst_units,
                                  res.judged ? res.judged->first : std::nullopt});
          break;
      }
    }
  }
}

}  // namespace

void apply_verdict_floor(GateReport& r) {
  for (ImplReport& rep : r.impls) {
    rep.under_floor.clear();
    if (!r.interrupted.empty() || r.stopped_early) continue;
    for (const auto& [name, s] : rep.properties) {
      if (!s.applicable) continue;
      JudgedCount n{s.passed + s.failed, s.declined, s.cases, {}};
      // Why the others were skipped: the commonest reasons of the run.
      std::vector<std::pair<int, std::string>> reasons;
      for (const auto& [why, k] : rep.skipped) reasons.emplace_back(-k, why);
      std::sort(reasons.begin(), reasons.end());
      for (std::size_t k = 0; k < reasons.size() && k < 3; ++k)
        n.skipped_for += (k ? ", " : "; skipped for: ") + reasons[k].second + " (" + std::to_string(-reasons[k].first) + ")";
      if (std::string why = verdict_floor_failure(n, r.min_judged); !why.empty()) rep.under_floor.emplace_back(name, why);
    }
  }
}

GateReport run_gate(const GateOptions& o) {
  if (o.shard_count < 1 || o.shard_index < 1 || o.shard_index > o.shard_count)
    throw std::invalid_argument("shard: must be i/n with 1 <= i <= n (got " + std::to_string(o.shard_index) + "/" +
                                std::to_string(o.shard_count) + ")");
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<const prop::Property*> props = selected_properties(o);
  // The cases of this run, then of this shard.
  const int total = o.cases ? *o.cases : suite_size(o.suite);
  GateReport r;
  static_cast<RunHeader&>(r) = RunHeader{.suite = o.suite,
                                         .seed = o.seed,
                                         .total_cases = o.only_case ? 1 : total,
                                         .shard_count = o.shard_count,
                                         .config_path = o.config_path,
                                         .min_judged = o.min_judged,
                                         .isolated = o.isolated};
  r.reproduce_environment = o.reproduce_environment;
  r.shard_index = o.shard_index;
  std::vector<std::vector<char>> applicable;
  for (const auto* impl : o.impls) {
    ImplReport rep;
    rep.name = impl->name;
    if (o.reproduce_args.count(rep.name)) rep.reproduce_args = " " + o.reproduce_args.at(rep.name);
    rep.policy = policy_text(policy_of(*impl));
    applicable.emplace_back();
    for (const auto* p : props) {
      PropertyStats s;
      s.not_applicable = prop::not_applicable(*p, *impl);
      s.applicable = s.not_applicable.empty();
      applicable.back().push_back(s.applicable);
      rep.properties.emplace_back(p->name, s);
    }
    r.impls.push_back(std::move(rep));
  }
  std::vector<int> indices;
  for (int idx = o.only_case ? *o.only_case : 0; idx < (o.only_case ? *o.only_case + 1 : total); ++idx)
    if (idx % o.shard_count == o.shard_index - 1) indices.push_back(idx);
  const int n = static_cast<int>(indices.size());
  r.planned_cases = n;
  ordered_parallel<CaseRun>(
      n, o.jobs, [&](int k) { return run_case(o, props, applicable, indices[static_cast<std::size_t>(k)]); },
      [&](int k, CaseRun run) {
        absorb(o, props, run, &r);
        if (!r.interrupted.empty()) return false;
        if (o.progress) o.progress(k + 1, n);
        if (o.stop_at_first_failing_case && !r.passed()) {
          r.stopped_early = true;
          return false;
        }
        return true;
      });
  apply_verdict_floor(r);
  // This run's workers end with it (on --jobs threads they ended with them).
  retire_workers();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace ropecheck
