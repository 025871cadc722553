#include "gate/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "gate/report_text.h"

namespace ropecheck {

std::string svg_plot(const std::string& title, const std::string& xlabel, const std::string& ylabel,
                     const std::vector<Series>& series, bool logy, double hline) {
  const double W = 720, H = 320, L = 70, R = 160, T = 30, B = 45;
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
  for (const auto& s : series)
    for (auto [x, y] : s.pts) {
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      const double v = logy ? std::log10(std::max(y, 1e-12)) : y;
      ymin = std::min(ymin, v);
      ymax = std::max(ymax, v);
    }
  if (hline > 0 && logy) {
    ymin = std::min(ymin, std::log10(hline));
    ymax = std::max(ymax, std::log10(hline));
  }
  if (!(xmax > xmin)) xmax = xmin + 1;
  if (!(ymax > ymin)) ymax = ymin + 1;
  if (logy) {
    ymin = std::floor(ymin);
    ymax = std::ceil(ymax);
  }
  auto X = [&](double x) { return L + (x - xmin) / (xmax - xmin) * (W - L - R); };
  auto Y = [&](double y) {
    const double v = logy ? std::log10(std::max(y, 1e-12)) : y;
    return T + (1 - (v - ymin) / (ymax - ymin)) * (H - T - B);
  };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" role=\"img\" aria-label=\"" << xml_escape(title) << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o << "<text x=\"" << L << "\" y=\"18\" font-size=\"13\" font-weight=\"bold\">" << xml_escape(title) << "</text>\n";
  o << "<rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << W - L - R << "\" height=\"" << H - T - B
    << "\" fill=\"none\" stroke=\"#888\"/>\n";
  // Ticks.
  for (int k = 0; k <= 4; ++k) {
    const double xv = xmin + (xmax - xmin) * k / 4;
    o << "<text x=\"" << X(xv) << "\" y=\"" << H - B + 15 << "\" text-anchor=\"middle\">" << format_number(xv, "%.3g")
      << "</text>\n";
    const double yv = ymin + (ymax - ymin) * k / 4;
    const double ypix = T + (1 - double(k) / 4) * (H - T - B);
    o << "<text x=\"" << L - 5 << "\" y=\"" << ypix + 4 << "\" text-anchor=\"end\">"
      << (logy ? "1e" + format_number(yv, "%.3g") : format_number(yv, "%.3g")) << "</text>\n";
  }
  o << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 8 << "\" text-anchor=\"middle\">" << xml_escape(xlabel)
    << "</text>\n";
  o << "<text transform=\"translate(14," << (T + H - B) / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
    << xml_escape(ylabel) << "</text>\n";
  if (hline > 0)
    o << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << Y(hline) << "\" y2=\"" << Y(hline)
      << "\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/><text x=\"" << W - R + 4 << "\" y=\"" << Y(hline) + 4
      << "\" fill=\"#c00\">budget</text>\n";
  int row = 0;
  for (const auto& s : series) {
    o << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"1.5\" points=\"";
    for (auto [x, y] : s.pts) o << format_number(X(x), "%.1f") << "," << format_number(Y(y), "%.1f") << " ";
    o << "\"/>\n";
    o << "<rect x=\"" << W - R + 10 << "\" y=\"" << T + 14 * row << "\" width=\"10\" height=\"10\" fill=\""
      << s.color << "\"/><text x=\"" << W - R + 24 << "\" y=\"" << T + 9 + 14 * row << "\">"
      << xml_escape(s.label) << "</text>\n";
    ++row;
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace ropecheck
