// A line plot as inline SVG (no scripts, no external resources), for the
// self-contained HTML report.
#ifndef ROPECHECK_GATE_SVG_PLOT_H_
#define ROPECHECK_GATE_SVG_PLOT_H_

#include <string>
#include <utility>
#include <vector>

namespace ropecheck {

struct Series {
  std::string label, color;
  std::vector<std::pair<double, double>> pts;
};

// x linear; y logarithmic when logy (values must then be positive); a dashed
// horizontal line labelled "budget" at hline when hline > 0.
std::string svg_plot(const std::string& title, const std::string& xlabel, const std::string& ylabel,
                     const std::vector<Series>& series, bool logy, double hline);

}  // namespace ropecheck

#endif  // ROPECHECK_GATE_SVG_PLOT_H_
