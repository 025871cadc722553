// SPDX-License-Identifier: MIT
// `ropecheck bench compare A.json B.json`: the definitions of speed/bench_compare.h.
#include "speed/bench_compare.h"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <map>
#include <set>

#include "core/report/report_text.h"

namespace ropecheck::speed {
namespace {

// The kernels a report names, rows and failures alike.
std::set<std::string> kernels(const BenchReport& r) {
  std::set<std::string> k;
  for (const BenchRow& row : r.rows) k.insert(row.impl);
  for (const auto& f : r.impl_failures) k.insert(f.first);
  return k;
}

}  // namespace

bool Comparison::regressed() const {
  for (const RowComparison& r : rows)
    if (r.change == Change::kSlower || r.change == Change::kFailedInB || r.change == Change::kMissingInB) return true;
  return false;
}

Comparison compare_bench(const BenchReport& a, const BenchReport& b) {
  Comparison c;
  c.by_shape = kernels(a).size() == 1 && kernels(b).size() == 1;
  const auto key = [&c](const BenchRow& r) { return c.by_shape ? r.shape_key() : r.key(); };
  std::map<std::string, const BenchRow*> in_b;
  for (const BenchRow& r : b.rows) in_b[key(r)] = &r;
  std::map<std::string, bool> seen;
  for (const BenchRow& ra : a.rows) {
    RowComparison out;
    out.name = ra.name();
    seen[key(ra)] = true;
    const auto it = in_b.find(key(ra));
    if (ra.status != RowStatus::kTimed) {
      out.change = Change::kNotComparable;
      out.note = std::string("not timed in A (") + row_status_name(ra.status) + ")";
    } else if (it == in_b.end()) {
      out.change = Change::kMissingInB;
      out.note = "timed in A, absent from B";
    } else if (it->second->status != RowStatus::kTimed) {
      out.change = it->second->status == RowStatus::kFailed ? Change::kFailedInB : Change::kNotComparable;
      out.note = std::string(row_status_name(it->second->status)) + " in B: " + it->second->reason;
    } else {
      const BenchRow& rb = *it->second;
      out.ratio_a = ra.ratio_to(ra.rmw);
      out.ratio_b = rb.ratio_to(rb.rmw);
      out.noise = std::hypot(std::hypot(ra.kernel.rel_iqr(), ra.rmw.rel_iqr()),
                             std::hypot(rb.kernel.rel_iqr(), rb.rmw.rel_iqr()));
      out.slowdown = out.ratio_b > 0 ? out.ratio_a / out.ratio_b : 0;
      const double fastest_b = rb.best_ratio_to(rb.rmw);
      out.slowdown_fastest = fastest_b > 0 ? ra.best_ratio_to(ra.rmw) / fastest_b : 0;
      const double slower = std::min(out.slowdown, out.slowdown_fastest);
      const double faster = std::max(out.slowdown, out.slowdown_fastest);
      out.change = slower > 1 + out.noise         ? Change::kSlower
                   : faster * (1 + out.noise) < 1 ? Change::kFaster
                                                  : Change::kWithinNoise;
    }
    c.rows.push_back(std::move(out));
  }
  for (const BenchRow& rb : b.rows)
    if (!seen.count(key(rb))) c.only_in_b.push_back(rb.name());
  return c;
}

void print_comparison(const Comparison& c, const BenchReport& a, const BenchReport& b, std::ostream& os) {
  os << "A: " << a.machine << "; " << a.date << "\nB: " << b.machine << "; " << b.date << "\n";
  if (c.by_shape && !c.rows.empty())
    os << "(one kernel in each report: rows matched by shape, the kernel named as in A)\n";
  if (a.machine != b.machine)
    os << "(different machines: each ratio is to its own run's in-place pass, which keeps the work, not the machine)\n";
  os << "\n| row | A vs in-place | B vs in-place | B slower by (median) | (fastest) | noise | verdict |\n"
        "|---|---:|---:|---:|---:|---:|---|\n";
  int regressions = 0;
  for (const RowComparison& r : c.rows) {
    const bool measured = r.change == Change::kWithinNoise || r.change == Change::kSlower || r.change == Change::kFaster;
    const char* verdict = r.change == Change::kSlower        ? "REGRESSION"
                          : r.change == Change::kFaster      ? "faster"
                          : r.change == Change::kWithinNoise ? "within the noise"
                          : r.change == Change::kFailedInB   ? "REGRESSION (fails in B)"
                          : r.change == Change::kMissingInB  ? "REGRESSION (missing in B)"
                                                             : "not compared";
    regressions += r.change == Change::kSlower || r.change == Change::kFailedInB || r.change == Change::kMissingInB;
    os << "| " << r.name << " | " << (measured ? format_fixed(r.ratio_a, 3) : "-") << " | "
       << (measured ? format_fixed(r.ratio_b, 3) : "-") << " | " << (measured ? format_fixed(r.slowdown, 2) + "x" : "-") << " | "
       << (measured ? format_fixed(r.slowdown_fastest, 2) + "x" : "-") << " | "
       << (measured ? "+-" + format_fixed(r.noise * 100, 0) + "%" : "-") << " | " << verdict
       << (r.note.empty() ? "" : ": " + r.note) << " |\n";
  }
  for (const std::string& n : c.only_in_b) os << "only in B: " << n << "\n";
  os << "(a row regresses when A's ratio / B's ratio > 1 + noise at the median calls and at the fastest alike; noise: "
        "the relative interquartile ranges of the kernel's and the in-place pass's times in A and in B, added in "
        "quadrature)\n";
  os << "Overall: " << (regressions ? "REGRESSION in " + std::to_string(regressions) + " row(s)" : "no regression")
     << "\n";
}

}  // namespace ropecheck::speed
