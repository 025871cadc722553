// SPDX-License-Identifier: MIT
// Text helpers the report writers share: XML/HTML escaping (XML 1.0 drops
// most control characters) and printf-style numbers.
#ifndef ROPECHECK_CORE_REPORT_REPORT_TEXT_H_
#define ROPECHECK_CORE_REPORT_REPORT_TEXT_H_

#include <string>

namespace ropecheck {

std::string xml_escape(const std::string& s);
std::string format_number(double v, const char* printf_format = "%.4g");
// v with `digits` digits after the point ("%.*f"): "3.14", "12.0".
std::string format_fixed(double v, int digits);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_REPORT_REPORT_TEXT_H_
