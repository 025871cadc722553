// SPDX-License-Identifier: MIT
// The skeleton every HTML report of ropecheck shares (the gate's --report,
// bench's --report): one self-contained page, no network, no external
// resource; its style, the few lines of script that sort a table by a
// clicked header and copy a reproduce line, and the verdict heading.
#ifndef ROPECHECK_CORE_REPORT_HTML_PAGE_H_
#define ROPECHECK_CORE_REPORT_HTML_PAGE_H_

#include <ostream>
#include <string>

namespace ropecheck {

// <!DOCTYPE html> ... <body>: the title (escaped) and the shared style.
void html_page_begin(const std::string& title, std::ostream& os);
// The scripts (sorting, copying), then </body></html>.
void html_page_end(std::ostream& os);
// A command to copy: selectable text in <pre><code>, and a copy button.
void html_copy_block(const std::string& command, std::ostream& os);
// <div class="plot" id="ID"> around an SVG from svg_plot().
void html_plot(const std::string& id, const std::string& svg, std::ostream& os);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_REPORT_HTML_PAGE_H_
