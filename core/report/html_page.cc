// SPDX-License-Identifier: MIT
// The skeleton every self-contained HTML report shares.
#include "core/report/html_page.h"

#include "core/report/report_text.h"

namespace ropecheck {
namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;max-width:1150px;margin:1.5em auto;padding:0 1em;color:#222}"
    "h1 .pass,.pass{color:#080}h1 .fail,.fail{color:#c00}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px;display:block;overflow-x:auto;max-width:100%}"
    "th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}"
    "th{background:#f0f0f0;cursor:pointer;user-select:none}th.sorted-asc::after{content:' \\25B2'}"
    "th.sorted-desc::after{content:' \\25BC'}td.num,th.num{text-align:right}"
    "tr.fail td{background:#fff0f0}"
    "pre{background:#f6f6f6;padding:.6em;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:0}"
    ".copy{display:flex;gap:.5em;align-items:flex-start;margin:.3em 0}.copy pre{flex:1}"
    ".copy button{font-size:12px;padding:3px 8px}"
    ".failure{border:1px solid #e0a0a0;border-left:5px solid #c00;padding:.5em 1em;margin:.8em 0;background:#fffafa}"
    ".failure h3{margin:.2em 0 .5em;font-size:15px}.failure table{margin:.3em 0}"
    ".failure .message,.failure .case{font-family:monospace;font-size:12px;white-space:pre-wrap;word-break:break-word;"
    "margin:.3em 0}table.element th{background:#f6f6f6;cursor:auto;width:9em}"
    "details.more{margin:.2em 0 .8em 1em}"
    ".plot{margin:.5em 0 1.5em}details{margin:1em 0}summary{cursor:pointer;font-weight:bold}";

// Sorting: a click on a header orders the body's rows by that column
// (numbers by value, "-" last; text alphabetically), again to reverse.
// Copying: the button copies its block's text (the text stays selectable
// where the clipboard is refused, as on some file:// pages).
constexpr const char* kScript = R"JS(
document.querySelectorAll('table.sortable th').forEach(function (th, _) {
  th.addEventListener('click', function () {
    var table = th.closest('table'), body = table.tBodies[0], col = th.cellIndex;
    var asc = !th.classList.contains('sorted-asc');
    table.querySelectorAll('th').forEach(function (h) { h.classList.remove('sorted-asc', 'sorted-desc'); });
    th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
    var key = function (tr) {
      var t = tr.cells[col] ? tr.cells[col].textContent.trim() : '';
      if (!th.classList.contains('num')) return t;
      if (t === '-' || t === '') return -Infinity;
      if (t.indexOf('inf') === 0) return Infinity;
      var v = parseFloat(t);
      return isNaN(v) ? -Infinity : v;
    };
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      var c = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
      return asc ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
document.querySelectorAll('.copy button').forEach(function (b) {
  b.addEventListener('click', function () {
    var text = b.parentNode.querySelector('code').textContent;
    var done = function () { b.textContent = 'copied'; };
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, function () {});
    var range = document.createRange();
    range.selectNodeContents(b.parentNode.querySelector('code'));
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    try { if (document.execCommand('copy')) done(); } catch (e) {}
  });
});
)JS";

}  // namespace

void html_page_begin(const std::string& title, std::ostream& os) {
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width\"><title>"
     << xml_escape(title) << "</title><style>" << kStyle << "</style></head><body>\n";
}

void html_page_end(std::ostream& os) { os << "<script>" << kScript << "</script>\n</body></html>\n"; }

void html_copy_block(const std::string& command, std::ostream& os) {
  os << "<div class=\"copy\"><pre><code>" << xml_escape(command)
     << "</code></pre><button type=\"button\" title=\"copy to the clipboard\">copy</button></div>\n";
}

void html_plot(const std::string& id, const std::string& svg, std::ostream& os) {
  os << "<div class=\"plot\" id=\"" << xml_escape(id) << "\">" << svg << "</div>\n";
}

}  // namespace ropecheck
