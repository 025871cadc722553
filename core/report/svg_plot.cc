// SPDX-License-Identifier: MIT
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

std::string svg_plot(const PlotOptions& opt, const std::vector<Series>& series) {
  // The axes' box [L, W - R] x [T, T + PH]; below it the x ticks and label,
  // then the legend.
  const double W = 760, L = 70, R = 20, T = 30, PH = 250;
  const double legend_top = T + PH + 54;
  const int cols = std::max(1, static_cast<int>((W - L) / kLegendColumn));
  const int rows = static_cast<int>((series.size() + static_cast<std::size_t>(cols) - 1) / static_cast<std::size_t>(cols));
  const double H = legend_top + rows * kLegendRow + 8;
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
  for (const auto& s : series)
    for (auto [x, y] : s.pts) {
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      const double v = transform(opt.y, y);
      if (!std::isfinite(v)) continue;  // an infinite error: drawn at the top
      ymin = std::min(ymin, v);
      ymax = std::max(ymax, v);
    }
  const bool line = opt.y == YScale::kLinear ? std::fabs(opt.hline) > 0 : opt.hline > 0;
  if (line) {
    ymin = std::min(ymin, transform(opt.y, opt.hline));
    ymax = std::max(ymax, transform(opt.y, opt.hline));
  }
  if (!(xmax >= xmin)) {  // no point at all
    xmin = 0;
    xmax = 1;
  }
  if (!(ymax >= ymin)) {
    ymin = 0;
    ymax = 1;
  }
  if (opt.y == YScale::kLog1p) ymin = 0;
  if (opt.y != YScale::kLinear) {
    ymin = std::floor(ymin);
    ymax = std::max(std::ceil(ymax), ymin + 1);
  }
  if (opt.x_log2) {  // whole powers of two at both ends
    xmin = std::floor(xmin);
    xmax = std::ceil(xmax);
  }
  if (!(xmax > xmin)) xmax = xmin + 1;
  if (!(ymax > ymin)) ymax = ymin + 1;
  auto X = [&](double x) { return L + (x - xmin) / (xmax - xmin) * (W - L - R); };
  auto Yv = [&](double v) { return T + (1 - (v - ymin) / (ymax - ymin)) * PH; };
  auto Y = [&](double y) {
    const double v = transform(opt.y, y);
    return Yv(std::isnan(v) || v > ymax ? ymax : std::max(v, ymin));
  };
  auto f1 = [](double v) { return format_number(v, "%.1f"); };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
    << " " << H << "\" role=\"img\" aria-label=\"" << xml_escape(opt.title)
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o << "<text class=\"label\" x=\"" << L << "\" y=\"18\" font-size=\"13\" font-weight=\"bold\">" << xml_escape(opt.title)
    << "</text>\n";
  o << "<rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << W - L - R << "\" height=\"" << PH
    << "\" fill=\"none\" stroke=\"#888\"/>\n";
  // x ticks: whole k for a log2 axis (at most 8 of them), else 5 even steps.
  std::vector<double> xt;
  if (opt.x_log2) {
    const double step = std::max(1.0, std::ceil((xmax - xmin) / 8));
    for (double k = std::ceil(xmin / step) * step; k <= xmax + 1e-9; k += step) xt.push_back(k);
  } else {
    for (int k = 0; k <= 4; ++k) xt.push_back(xmin + (xmax - xmin) * k / 4);
  }
  for (double xv : xt)
    o << "<text class=\"label\" x=\"" << f1(X(xv)) << "\" y=\"" << T + PH + 20 << "\" text-anchor=\"middle\">"
      << (opt.x_log2 ? "2^" + format_number(xv, "%.0f") : format_number(xv, "%.3g"))
      << "</text>\n";
  // y ticks: every k-th decade on a log axis; 0, 1, 10, 100... on a log1p
  // one; else 5 even steps.
  std::vector<std::pair<double, std::string>> yt;  // (transformed value, label)
  if (opt.y == YScale::kLog) {
    const int step = std::max(1, (static_cast<int>(ymax - ymin) + 3) / 4);
    for (double v = ymin; v <= ymax + 1e-9; v += step) yt.emplace_back(v, "1e" + format_number(v, "%.0f"));
  } else if (opt.y == YScale::kLog1p) {
    const int step = std::max(1, (static_cast<int>(ymax) + 4) / 5);
    yt.emplace_back(0, "0");
    for (int e = 0; std::log10(1 + std::pow(10.0, e)) <= ymax + 1e-9; e += step)
      yt.emplace_back(std::log10(1 + std::pow(10.0, e)), format_number(std::pow(10.0, e), "%.0g"));
  } else {
    for (int k = 0; k <= 4; ++k) {
      const double v = ymin + (ymax - ymin) * k / 4;
      yt.emplace_back(v, format_number(v, "%.3g"));
    }
  }
  double last = -1e9;
  for (const auto& [v, text] : yt) {
    if (std::fabs(Yv(v) - last) < 14) continue;  // labels 11 px high must not touch
    last = Yv(v);
    o << "<text class=\"label\" x=\"" << L - 5 << "\" y=\"" << f1(Yv(v) + 4) << "\" text-anchor=\"end\">" << text
      << "</text>\n";
    o << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << f1(Yv(v)) << "\" y2=\"" << f1(Yv(v))
      << "\" stroke=\"#eee\"/>\n";
  }
  o << "<text class=\"label\" x=\"" << (L + W - R) / 2 << "\" y=\"" << T + PH + 38 << "\" text-anchor=\"middle\">"
    << xml_escape(opt.xlabel) << "</text>\n";
  o << "<text class=\"label\" transform=\"translate(14," << T + PH / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
    << xml_escape(opt.ylabel) << "</text>\n";
  int k = 0;
  for (const auto& s : series) {
    if (s.pts.size() == 1) {
      o << "<circle cx=\"" << f1(X(s.pts[0].first)) << "\" cy=\"" << f1(Y(s.pts[0].second)) << "\" r=\"3\" fill=\""
        << s.color << "\"/>\n";
    } else if (!s.pts.empty()) {
      o << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.5\" points=\"";
      for (auto [x, y] : s.pts) o << f1(X(x)) << "," << f1(Y(y)) << " ";
      o << "\"/>\n";
    }
    const double lx = L + (k % cols) * kLegendColumn, ly = legend_top + (k / cols) * kLegendRow;
    std::string text = s.label;
    if (text.size() > kLegendChars) text = text.substr(0, kLegendChars - 1) + "\u2026";
    o << "<g class=\"legend-item\"><title>" << xml_escape(s.label) << "</title><rect x=\"" << lx << "\" y=\""
      << ly - 9 << "\" width=\"10\" height=\"10\" fill=\"" << s.color << "\"/><text x=\"" << lx + 14 << "\" y=\""
      << ly << "\">" << xml_escape(text) << "</text></g>\n";
    ++k;
  }
  // Drawn last, over the curves, inside the box: at its left end, above the
  // line (below it when the line runs along the top).
  if (line) {
    const double y = Y(opt.hline);
    o << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << f1(y) << "\" y2=\"" << f1(y)
      << "\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/><text class=\"label\" x=\"" << L + 4 << "\" y=\""
      << f1(y - T < 16 ? y + 13 : y - 4) << "\" fill=\"#c00\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">"
      << xml_escape(opt.hline_label) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace ropecheck
