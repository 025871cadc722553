#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ropecheck/check.h"
#include "ropecheck/properties/property.h"

namespace ropecheck {

bool CheckReport::passed() const {
  for (const auto& i : impls)
    if (!i.passed()) return false;
  return true;
}

std::string reproduce_command(const std::string& impl, Suite suite, std::uint64_t seed, int index,
                              const std::string& property, const std::string& config_path) {
  std::string s = "ropecheck check --impl " + impl + " --suite " + suite_name(suite) + " --seed " +
                  std::to_string(seed) + " --case " + std::to_string(index);
  if (!property.empty()) s += " --property " + property;
  if (!config_path.empty()) s += " --config " + config_path;
  return s;
}

namespace {

std::vector<const prop::Property*> selected_properties(const CheckOptions& o) {
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

void add_bins(ImplReport& rep, const CaseOutcome& out) {
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

CheckReport run_check(const CheckOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<const prop::Property*> props = selected_properties(o);
  CheckReport r;
  r.suite = o.suite;
  r.seed = o.seed;
  for (const auto* impl : o.impls) {
    ImplReport rep;
    rep.name = impl->name;
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
  for (int idx = first; idx < last; ++idx) {
    Case c = make_case(o.suite, o.seed, idx);
    if (o.config) {
      c.freq = o.config->freq;
      c.shape = o.config->shape;
      if (o.config->layout) c.layout = *o.config->layout;
    }
    ++r.cases;
    // Conformance shares one reference evaluation across implementations.
    std::optional<CaseRunner> runner;
    for (std::size_t k = 0; k < o.impls.size(); ++k) {
      const ropecheck_impl_t& impl = *o.impls[k];
      ImplReport& rep = r.impls[k];
      for (std::size_t pi = 0; pi < props.size(); ++pi) {
        const prop::Property& p = *props[pi];
        PropertyStats& ps = rep.properties[pi].second;
        if (!ps.applicable) continue;
        ++ps.cases;
        prop::PropertyResult res;
        const bool conformance = std::string_view(p.name) == "ConformsToReference";
        if (conformance) {
          if (!runner) runner.emplace(c);
          const CaseOutcome out = runner->run(impl);
          res = {out.outcome, out.message, out.worst_units};
          FamilyStats& f = rep.families[c.family()];
          ++f.cases;
          if (out.outcome == Outcome::kSkipped) {
            ++f.skipped;
          } else {
            f.worst_units = std::max(f.worst_units, out.worst_units);
            f.worst_ulps = std::max(f.worst_ulps, out.worst_ulps);
            add_bins(rep, out);
            ++(out.outcome == Outcome::kPass ? f.passed : f.failed);
          }
        } else {
          res = p.check(impl, c);
        }
        switch (res.outcome) {
          case Outcome::kSkipped:
            ++ps.skipped;
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
                                        (o.reproduce_args.count(rep.name) ? " " + o.reproduce_args.at(rep.name) : "")});
            break;
        }
      }
    }
    if (o.progress) o.progress(idx - first + 1, last - first);
    if (o.stop_at_first_failing_case && !r.passed()) break;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

namespace {
std::string fmt(double v) {
  if (std::isinf(v)) return "inf";
  char buf[32];
  const bool sci = std::fabs(v) > 0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e5);
  std::snprintf(buf, sizeof buf, sci ? "%.2e" : "%.3f", v);
  return buf;
}
}  // namespace

void print_summary(const CheckReport& r, std::ostream& os) {
  os << "## ropecheck check: suite " << suite_name(r.suite) << ", seed " << r.seed << ", "
     << r.cases << " cases, " << fmt(r.seconds) << " s\n\n";
  os << "### Conformance with the reference\n\n"
        "Worst error in units of the implementation's budget (pass <= 1), and in ulps of the\n"
        "storage dtype against the correctly rounded exact result.\n\n";
  os << "| implementation | family | cases | passed | failed | skipped | worst/budget | worst ulps | result |\n";
  os << "|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& i : r.impls) {
    for (const auto& [family, f] : i.families) {
      const char* verdict = f.failed ? "FAIL" : (f.passed ? "pass" : "skipped");
      os << "| " << i.name << " | " << family << " | " << f.cases << " | " << f.passed << " | "
         << f.failed << " | " << f.skipped << " | " << fmt(f.worst_units) << " | "
         << fmt(f.worst_ulps) << " | " << verdict << " |\n";
    }
  }
  os << "\n### Properties\n\n";
  os << "| implementation | property | cases | passed | failed | skipped | worst/budget | result |\n";
  os << "|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const auto& i : r.impls) {
    for (const auto& [name, s] : i.properties) {
      if (!s.applicable) {
        os << "| " << i.name << " | " << name << " | - | - | - | - | - | n/a (" << s.not_applicable << ") |\n";
        continue;
      }
      const char* verdict = s.failed ? "FAIL" : (s.passed ? "pass" : "skipped");
      os << "| " << i.name << " | " << name << " | " << s.cases << " | " << s.passed << " | " << s.failed
         << " | " << s.skipped << " | " << fmt(s.worst_units) << " | " << verdict << " |\n";
    }
  }
  os << "\n### Worst conformance error by position range\n\n"
        "Where a kernel loses accuracy with context length:\n\n";
  os << "| implementation |";
  for (int b = 0; b < kPositionBins; ++b) os << " " << position_bin_name(b) << " |";
  os << "\n|---|";
  for (int b = 0; b < kPositionBins; ++b) os << "---:|";
  os << "\n";
  for (const auto& i : r.impls) {
    os << "| " << i.name << " |";
    for (int b = 0; b < kPositionBins; ++b) {
      const BinStats& s = i.bins[b];
      if (s.elements == 0)
        os << " - |";
      else
        os << " " << fmt(s.worst_units) << " budget, " << fmt(s.worst_ulps) << " ulp |";
    }
    os << "\n";
  }
  os << "\nOverall: " << (r.passed() ? "PASS" : "FAIL") << "\n";
}

void print_failures(const CheckReport& r, std::ostream& os, int max_per_impl) {
  for (const auto& i : r.impls) {
    int shown = 0;
    for (const auto& f : i.failures) {
      if (shown++ == max_per_impl) {
        os << "  ... " << (i.failures.size() - max_per_impl) << " more failure(s) of " << i.name << "\n";
        break;
      }
      os << "FAIL " << i.name << " " << f.property << " case " << f.case_index << " (" << f.family
         << ", seed " << r.seed << "): " << f.message << "\n  case: " << f.case_description
         << "\n  reproduce: " << f.reproduce << "\n";
    }
  }
}

}  // namespace ropecheck
