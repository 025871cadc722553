// SPDX-License-Identifier: MIT
// A line plot as inline SVG: frame, ticks, curves, legend and a reference line.
#include "core/report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/report/report_text.h"

namespace ropecheck {
namespace {

double transform(YScale s, double y) {
  switch (s) {
    case YScale::kLog: return std::log10(std::max(y, 1e-12));
    case YScale::kLog1p: return std::log10(1 + std::max(y, 0.0));
    case YScale::kLinear: break;
  }
  return y;
}

// Legend text beyond this many characters is cut (the whole name in its
// <title>), so a column never runs into the next.
constexpr std::size_t kLegendChars = 36;
constexpr double kLegendColumn = 250, kLegendRow = 16;

}  // namespace

const char* series_color(std::size_t i) {
  constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return kColors[i % 10];
}

namespace {

// The axes' box [kLeft, kWidth - kRight] x [kTop, kTop + kPlotHeight];
// below it the x ticks and label, then the legend.
constexpr double kWidth = 760, kLeft = 70, kRight = 20, kTop = 30, kPlotHeight = 250;
constexpr double kLegendTop = kTop + kPlotHeight + 54;

// The plotted ranges (y transformed by the scale) and where a value lands.
struct PlotFrame {
  const PlotOptions& opt;
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
  bool line = false;  // the horizontal reference line is drawn
  double X(double x) const { return kLeft + (x - xmin) / (xmax - xmin) * (kWidth - kLeft - kRight); }
  double Yv(double v) const { return kTop + (1 - (v - ymin) / (ymax - ymin)) * kPlotHeight; }
  double Y(double y) const {
    const double v = transform(opt.y, y);
    return Yv(std::isnan(v) || v > ymax ? ymax : std::max(v, ymin));
  }
};

std::string svg_number(double v) { return format_number(v, "%.1f"); }

// The ranges every point (and the reference line) fits in, rounded out to
// whole decades on a log axis and whole powers of two on a log2 one.
PlotFrame plot_frame(const PlotOptions& opt, const std::vector<Series>& series) {
  PlotFrame f{opt};
  for (const auto& s : series)
    for (auto [x, y] : s.pts) {
      f.xmin = std::min(f.xmin, x);
      f.xmax = std::max(f.xmax, x);
      const double v = transform(opt.y, y);
      if (!std::isfinite(v)) continue;  // an infinite error: drawn at the top
      f.ymin = std::min(f.ymin, v);
      f.ymax = std::max(f.ymax, v);
    }
  f.line = opt.y == YScale::kLinear ? std::fabs(opt.hline) > 0 : opt.hline > 0;
  if (f.line) {
    f.ymin = std::min(f.ymin, transform(opt.y, opt.hline));
    f.ymax = std::max(f.ymax, transform(opt.y, opt.hline));
  }
  if (!(f.xmax >= f.xmin)) {  // no point at all
    f.xmin = 0;
    f.xmax = 1;
  }
  if (!(f.ymax >= f.ymin)) {
    f.ymin = 0;
    f.ymax = 1;
  }
  if (opt.y == YScale::kLog1p) f.ymin = 0;
  if (opt.y != YScale::kLinear) {
    f.ymin = std::floor(f.ymin);
    f.ymax = std::max(std::ceil(f.ymax), f.ymin + 1);
  }
  if (opt.x_log2) {  // whole powers of two at both ends
    f.xmin = std::floor(f.xmin);
    f.xmax = std::ceil(f.xmax);
  }
  if (!(f.xmax > f.xmin)) f.xmax = f.xmin + 1;
  if (!(f.ymax > f.ymin)) f.ymax = f.ymin + 1;
  return f;
}

// x ticks: whole k for a log2 axis (at most 8 of them), else 5 even steps.
void write_x_ticks(std::ostringstream& o, const PlotFrame& f) {
  std::vector<double> xt;
  if (f.opt.x_log2) {
    const double step = std::max(1.0, std::ceil((f.xmax - f.xmin) / 8));
    for (double k = std::ceil(f.xmin / step) * step; k <= f.xmax + 1e-9; k += step) xt.push_back(k);
  } else {
    for (int k = 0; k <= 4; ++k) xt.push_back(f.xmin + (f.xmax - f.xmin) * k / 4);
  }
  for (double xv : xt)
    o << "<text class=\"label\" x=\"" << svg_number(f.X(xv)) << "\" y=\"" << kTop + kPlotHeight + 20
      << "\" text-anchor=\"middle\">" << (f.opt.x_log2 ? "2^" + format_number(xv, "%.0f") : format_number(xv, "%.3g"))
      << "</text>\n";
}

// y ticks: every k-th decade on a log axis; 0, 1, 10, 100... on a log1p
// one; else 5 even steps.
void write_y_ticks(std::ostringstream& o, const PlotFrame& f) {
  std::vector<std::pair<double, std::string>> yt;  // (transformed value, label)
  if (f.opt.y == YScale::kLog) {
    const int step = std::max(1, (static_cast<int>(f.ymax - f.ymin) + 3) / 4);
    for (double v = f.ymin; v <= f.ymax + 1e-9; v += step) yt.emplace_back(v, "1e" + format_number(v, "%.0f"));
  } else if (f.opt.y == YScale::kLog1p) {
    const int step = std::max(1, (static_cast<int>(f.ymax) + 4) / 5);
    yt.emplace_back(0, "0");
    for (int e = 0; std::log10(1 + std::pow(10.0, e)) <= f.ymax + 1e-9; e += step)
      yt.emplace_back(std::log10(1 + std::pow(10.0, e)), format_number(std::pow(10.0, e), "%.0g"));
  } else {
    for (int k = 0; k <= 4; ++k) {
      const double v = f.ymin + (f.ymax - f.ymin) * k / 4;
      yt.emplace_back(v, format_number(v, "%.3g"));
    }
  }
  double last = -1e9;
  for (const auto& [v, text] : yt) {
    if (std::fabs(f.Yv(v) - last) < 14) continue;  // labels 11 px high must not touch
    last = f.Yv(v);
    o << "<text class=\"label\" x=\"" << kLeft - 5 << "\" y=\"" << svg_number(f.Yv(v) + 4) << "\" text-anchor=\"end\">"
      << text << "</text>\n";
    o << "<line x1=\"" << kLeft << "\" x2=\"" << kWidth - kRight << "\" y1=\"" << svg_number(f.Yv(v)) << "\" y2=\""
      << svg_number(f.Yv(v)) << "\" stroke=\"#eee\"/>\n";
  }
}

// Each series' curve (a dot for a single point) and its legend entry, in
// `cols` columns below the axes.
void write_series(std::ostringstream& o, const PlotFrame& f, const std::vector<Series>& series, int cols) {
  int k = 0;
  for (const auto& s : series) {
    if (s.pts.size() == 1) {
      o << "<circle cx=\"" << svg_number(f.X(s.pts[0].first)) << "\" cy=\"" << svg_number(f.Y(s.pts[0].second))
        << "\" r=\"3\" fill=\"" << s.color << "\"/>\n";
    } else if (!s.pts.empty()) {
      o << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.5\" points=\"";
      for (auto [x, y] : s.pts) o << svg_number(f.X(x)) << "," << svg_number(f.Y(y)) << " ";
      o << "\"/>\n";
    }
    const double lx = kLeft + (k % cols) * kLegendColumn, ly = kLegendTop + (k / cols) * kLegendRow;
    std::string text = s.label;
    if (text.size() > kLegendChars) text = text.substr(0, kLegendChars - 1) + "\u2026";
    o << "<g class=\"legend-item\"><title>" << xml_escape(s.label) << "</title><rect x=\"" << lx << "\" y=\""
      << ly - 9 << "\" width=\"10\" height=\"10\" fill=\"" << s.color << "\"/><text x=\"" << lx + 14 << "\" y=\""
      << ly << "\">" << xml_escape(text) << "</text></g>\n";
    ++k;
  }
}

// Drawn last, over the curves, inside the box: at its left end, above the
// line (below it when the line runs along the top).
void write_reference_line(std::ostringstream& o, const PlotFrame& f) {
  const double y = f.Y(f.opt.hline);
  o << "<line x1=\"" << kLeft << "\" x2=\"" << kWidth - kRight << "\" y1=\"" << svg_number(y) << "\" y2=\""
    << svg_number(y) << "\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/><text class=\"label\" x=\"" << kLeft + 4
    << "\" y=\"" << svg_number(y - kTop < 16 ? y + 13 : y - 4)
    << "\" fill=\"#c00\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">" << xml_escape(f.opt.hline_label)
    << "</text>\n";
}

}  // namespace

std::string svg_plot(const PlotOptions& opt, const std::vector<Series>& series) {
  const int cols = std::max(1, static_cast<int>((kWidth - kLeft) / kLegendColumn));
  const int rows =
      static_cast<int>((series.size() + static_cast<std::size_t>(cols) - 1) / static_cast<std::size_t>(cols));
  const double H = kLegendTop + rows * kLegendRow + 8;
  const PlotFrame f = plot_frame(opt, series);
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << H << "\" viewBox=\"0 0 "
    << kWidth << " " << H << "\" role=\"img\" aria-label=\"" << xml_escape(opt.title)
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o << "<text class=\"label\" x=\"" << kLeft << "\" y=\"18\" font-size=\"13\" font-weight=\"bold\">"
    << xml_escape(opt.title) << "</text>\n";
  o << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kWidth - kLeft - kRight << "\" height=\""
    << kPlotHeight << "\" fill=\"none\" stroke=\"#888\"/>\n";
  write_x_ticks(o, f);
  write_y_ticks(o, f);
  o << "<text class=\"label\" x=\"" << (kLeft + kWidth - kRight) / 2 << "\" y=\"" << kTop + kPlotHeight + 38
    << "\" text-anchor=\"middle\">" << xml_escape(opt.xlabel) << "</text>\n";
  o << "<text class=\"label\" transform=\"translate(14," << kTop + kPlotHeight / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << xml_escape(opt.ylabel) << "</text>\n";
  write_series(o, f, series, cols);
  if (f.line) write_reference_line(o, f);
  o << "</svg>\n";
  return o.str();
}

}  // namespace ropecheck
