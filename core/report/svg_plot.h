// SPDX-License-Identifier: MIT
// A line plot as inline SVG (no scripts, no external resources), for the
// self-contained HTML reports. The legend sits below the axes, in columns,
// and a horizontal reference line's label inside the plot area: neither
// can cover the other or an axis label (gate/test/report_render_test.sh
// checks the rendered boxes). Text carries class "label" (titles, ticks,
// axis and line labels) or sits in a <g class="legend-item">.
#ifndef ROPECHECK_CORE_REPORT_SVG_PLOT_H_
#define ROPECHECK_CORE_REPORT_SVG_PLOT_H_

#include <string>
#include <utility>
#include <vector>

namespace ropecheck {

struct Series {
  std::string label, color;
  std::vector<std::pair<double, double>> pts;
};

enum class YScale {
  kLinear,
  kLog,    // log10 y: values must be positive (smaller ones are drawn at 1e-12)
  kLog1p,  // log10(1 + y): 0 stays on the axis, ulps from 0 to millions on one plot
};

struct PlotOptions {
  std::string title, xlabel, ylabel;
  YScale y = YScale::kLinear;
  bool x_log2 = false;  // x is log2 of something: the axis spans whole k, ticks read "2^k"
  double hline = 0;     // a dashed horizontal line at this y when > 0 (kLinear: when != 0)
  std::string hline_label;
};

std::string svg_plot(const PlotOptions& o, const std::vector<Series>& series);

// Ten distinguishable colours, the i-th series' modulo 10.
const char* series_color(std::size_t i);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_REPORT_SVG_PLOT_H_
