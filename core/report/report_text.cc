// SPDX-License-Identifier: MIT
// Text helpers the report writers share: XML escaping and printf-style numbers.
#include "core/report/report_text.h"

#include <cstdio>

namespace ropecheck {

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

std::string format_number(double v, const char* f) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string format_fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

}  // namespace ropecheck
