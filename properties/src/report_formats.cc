// Machine-readable and visual forms of a CheckReport: JUnit XML for CI
// systems and a self-contained HTML page (inline SVG, no scripts, no
// external resources) a reviewer can open from a CI artifact.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ropecheck/check.h"

namespace ropecheck {
namespace {

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters.
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\n' || ch == '\t') o += ch;
    }
  }
  return o;
}

std::string num(double v, const char* f = "%.4g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

void write_junit(const CheckReport& r, std::ostream& os) {
  int tests = 0, failures = 0, skipped = 0;
  for (const auto& i : r.impls)
    for (const auto& [name, s] : i.properties) {
      ++tests;
      failures += s.failed > 0;
      skipped += !s.applicable || (s.passed == 0 && s.failed == 0);
    }
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites name=\"ropecheck check\" tests=\"" << tests << "\" failures=\"" << failures
     << "\" skipped=\"" << skipped << "\" time=\"" << num(r.seconds, "%.3f") << "\">\n";
  for (const auto& i : r.impls) {
    int f = 0, sk = 0;
    for (const auto& [name, s] : i.properties) {
      f += s.failed > 0;
      sk += !s.applicable || (s.passed == 0 && s.failed == 0);
    }
    os << "  <testsuite name=\"" << xml_escape(i.name) << "\" tests=\"" << i.properties.size()
       << "\" failures=\"" << f << "\" skipped=\"" << sk << "\">\n";
    os << "    <properties><property name=\"suite\" value=\"" << suite_name(r.suite)
       << "\"/><property name=\"seed\" value=\"" << r.seed << "\"/></properties>\n";
    for (const auto& [name, s] : i.properties) {
      os << "    <testcase classname=\"Rope." << xml_escape(name) << "\" name=\"" << xml_escape(i.name)
         << "\">\n";
      if (!s.applicable) {
        os << "      <skipped message=\"" << xml_escape("not applicable: " + s.not_applicable) << "\"/>\n";
      } else if (s.failed) {
        std::ostringstream body;
        for (const auto& fr : i.failures)
          if (fr.property == name)
            body << "case " << fr.case_index << ": " << fr.message << "\n  case: " << fr.case_description
                 << "\n  reproduce: " << fr.reproduce << "\n";
        os << "      <failure message=\"" << s.failed << " of " << s.cases << " cases failed (seed " << r.seed
           << ")\">" << xml_escape(body.str()) << "</failure>\n";
      } else if (s.passed == 0) {
        os << "      <skipped message=\"every case outside the declared capabilities\"/>\n";
      }
      os << "      <system-out>" << s.passed << " passed, " << s.failed << " failed, " << s.skipped
         << " skipped; worst " << num(s.worst_units) << " of budget</system-out>\n";
      os << "    </testcase>\n";
    }
    os << "  </testsuite>\n";
  }
  os << "</testsuites>\n";
}

namespace {

// A log-log scatter/line plot as inline SVG. xs, ys must be positive.
struct Series {
  std::string label, color;
  std::vector<std::pair<double, double>> pts;
};

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
    o << "<text x=\"" << X(xv) << "\" y=\"" << H - B + 15 << "\" text-anchor=\"middle\">" << num(xv, "%.3g")
      << "</text>\n";
    const double yv = ymin + (ymax - ymin) * k / 4;
    const double ypix = T + (1 - double(k) / 4) * (H - T - B);
    o << "<text x=\"" << L - 5 << "\" y=\"" << ypix + 4 << "\" text-anchor=\"end\">"
      << (logy ? "1e" + num(yv, "%.3g") : num(yv, "%.3g")) << "</text>\n";
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
    for (auto [x, y] : s.pts) o << num(X(x), "%.1f") << "," << num(Y(y), "%.1f") << " ";
    o << "\"/>\n";
    o << "<rect x=\"" << W - R + 10 << "\" y=\"" << T + 14 * row << "\" width=\"10\" height=\"10\" fill=\""
      << s.color << "\"/><text x=\"" << W - R + 24 << "\" y=\"" << T + 9 + 14 * row << "\">"
      << xml_escape(s.label) << "</text>\n";
    ++row;
  }
  o << "</svg>\n";
  return o.str();
}

constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

}  // namespace

void write_html_report(const CheckReport& r, const std::vector<double>& decay, std::ostream& os) {
  std::ostringstream md;
  print_summary(r, md);
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>ropecheck report</title><style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
        "pre{background:#f6f6f6;padding:1em;overflow-x:auto}.fail{color:#c00}.pass{color:#080}</style></head><body>\n";
  os << "<h1>ropecheck check: <span class=\"" << (r.passed() ? "pass\">PASS" : "fail\">FAIL")
     << "</span></h1>\n<p>Suite " << suite_name(r.suite) << ", seed " << r.seed << ", " << r.cases
     << " cases, " << num(r.seconds, "%.1f") << " s.</p>\n";
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
