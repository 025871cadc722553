// SPDX-License-Identifier: MIT
// A table of the gate's report, built once and rendered in each format the
// report is read in: markdown (the terminal, --summary, Python's tables)
// and HTML (--report, sortable). One builder per table, so the formats
// cannot disagree on what a table holds.
#ifndef ROPECHECK_CORE_REPORT_REPORT_TABLE_H_
#define ROPECHECK_CORE_REPORT_REPORT_TABLE_H_

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ropecheck {

struct ReportTable {
  ReportTable() = default;
  ReportTable(std::string id_, std::string title_, std::string intro_ = {})
      : id(std::move(id_)), title(std::move(title_)), intro(std::move(intro_)) {}
  std::string id;     // the HTML element's id ("conformance"); never shown
  std::string title;  // "Conformance with the reference"; empty: no heading
  std::string intro;  // what the table says, plain text (markdown line breaks kept)
  std::vector<std::string> headers;
  std::vector<bool> numeric;  // per column: right-aligned, sorted as numbers
  std::vector<std::vector<std::string>> rows;
  // Cells written in markdown as `code` and in HTML as <code> (reproduce lines).
  std::vector<bool> code;
  void add_column(std::string header, bool is_numeric = false, bool is_code = false);
};

// "### title\n\nintro\n\n| a | b |\n|---|---:|\n| ... |\n" (no trailing blank line).
void write_markdown(const ReportTable& t, std::ostream& os);
// <h3>, <p> and a <table class="sortable"> with <thead>/<tbody>, text escaped.
void write_html(const ReportTable& t, std::ostream& os);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_REPORT_REPORT_TABLE_H_
