// SPDX-License-Identifier: MIT
// A report table built once and rendered as markdown and as HTML.
#include "core/report/report_table.h"

#include "core/report/report_text.h"

namespace ropecheck {

void ReportTable::add_column(std::string header, bool is_numeric, bool is_code) {
  headers.push_back(std::move(header));
  numeric.push_back(is_numeric);
  code.push_back(is_code);
}

namespace {

// A "|" inside a cell ends it in markdown: written "\|".
std::string cell_text(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|') o += '\\';
    o += c;
  }
  return o;
}

}  // namespace

void write_markdown(const ReportTable& t, std::ostream& os) {
  if (!t.title.empty()) os << "### " << t.title << "\n\n";
  if (!t.intro.empty()) os << t.intro << "\n\n";
  os << "|";
  for (const std::string& h : t.headers) os << " " << cell_text(h) << " |";
  os << "\n|";
  for (std::size_t c = 0; c < t.headers.size(); ++c) os << (t.numeric[c] ? "---:|" : "---|");
  os << "\n";
  for (const auto& row : t.rows) {
    os << "|";
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool code = c < t.code.size() && t.code[c] && row[c] != "-";
      os << " " << (code ? "`" + cell_text(row[c]) + "`" : cell_text(row[c])) << " |";
    }
    os << "\n";
  }
}

void write_html(const ReportTable& t, std::ostream& os) {
  if (!t.title.empty()) os << "<h3 id=\"" << xml_escape(t.id) << "\">" << xml_escape(t.title) << "</h3>\n";
  if (!t.intro.empty()) os << "<p>" << xml_escape(t.intro) << "</p>\n";
  os << "<table class=\"sortable\" data-table=\"" << xml_escape(t.id) << "\"><thead><tr>";
  for (std::size_t c = 0; c < t.headers.size(); ++c)
    os << "<th" << (t.numeric[c] ? " class=\"num\"" : "") << " title=\"sort\">" << xml_escape(t.headers[c]) << "</th>";
  os << "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    os << "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool code = c < t.code.size() && t.code[c] && row[c] != "-";
      os << "<td" << (t.numeric[c] ? " class=\"num\"" : "") << ">" << (code ? "<code>" : "") << xml_escape(row[c])
         << (code ? "</code>" : "") << "</td>";
    }
    os << "</tr>\n";
  }
  os << "</tbody></table>\n";
}

}  // namespace ropecheck
