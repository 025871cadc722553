// The gate's report as one self-contained HTML page a reviewer can open
// from a CI artifact: the tables, error-versus-position plots and the
// RoFormer long-term decay curve.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

#include "gate/gate.h"
#include "gate/report_text.h"
#include "gate/svg_plot.h"

namespace ropecheck {
namespace {

constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

}  // namespace

void write_html_report(const GateReport& r, const std::vector<double>& decay, std::ostream& os) {
  std::ostringstream md;
  print_summary(r, md);
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>ropecheck report</title><style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
        "pre{background:#f6f6f6;padding:1em;overflow-x:auto}.fail{color:#c00}.pass{color:#080}</style></head><body>\n";
  os << "<h1>ropecheck check: <span class=\""
     << (!r.interrupted.empty() ? "fail\">INTERRUPTED" : r.passed() ? "pass\">PASS" : "fail\">FAIL")
     << "</span></h1>\n<p>Suite " << suite_name(r.suite) << ", seed " << r.seed << ", " << r.cases
     << " cases, " << format_number(r.seconds, "%.1f") << " s.</p>\n";
  os << "<h2>Error against position</h2>\n<p>Worst conformance error per 1/16 octave of position: in units of "
        "each implementation's own budget (fails above the dashed line), and in ulps of the storage dtype "
        "against the correctly rounded exact result.</p>\n";
  std::vector<Series> units, ulps;
  int k = 0;
  for (const auto& i : r.impls) {
    Series su{i.name, kColors[k % 10], {}}, sl{i.name, kColors[k % 10], {}};
    for (const auto& [bucket, pt] : i.curve) {
      const double x = std::log2(std::fabs(static_cast<double>(pt.position)) + 1);
      su.pts.emplace_back(x, std::max(pt.worst_units, 1e-6));
      sl.pts.emplace_back(x, std::max(pt.worst_ulps, 1e-3));
    }
    units.push_back(std::move(su));
    ulps.push_back(std::move(sl));
    ++k;
  }
  os << "<div class=\"plot\" id=\"plot-budget\">"
     << svg_plot("worst error / budget", "log2(position + 1)", "error / budget (log)", units, true, 1.0)
     << "</div>\n";
  os << "<div class=\"plot\" id=\"plot-ulps\">"
     << svg_plot("worst error in ulps vs exact", "log2(position + 1)", "ulps (log)", ulps, true, 0) << "</div>\n";
  if (!decay.empty()) {
    Series d{"d=128, b=1e4", kColors[0], {}};
    for (std::size_t rr = 0; rr < decay.size(); ++rr) d.pts.emplace_back(static_cast<double>(rr), decay[rr]);
    os << "<h2>Long-term decay (RoFormer 3.4.3)</h2>\n<div class=\"plot\" id=\"plot-decay\">"
       << svg_plot("(1/(d/2)) sum |S_j(r)|", "relative distance r", "bound", {d}, false, 0) << "</div>\n";
  }
  os << "<h2>Tables</h2>\n<pre>" << xml_escape(md.str()) << "</pre>\n";
  if (!r.passed()) {
    std::ostringstream f;
    print_failures(r, f, 20);
    os << "<h2 class=\"fail\">Failures</h2>\n<pre>" << xml_escape(f.str()) << "</pre>\n";
  }
  os << "</body></html>\n";
}

}  // namespace ropecheck
