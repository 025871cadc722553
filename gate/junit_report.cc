// SPDX-License-Identifier: MIT
// The gate's report as JUnit XML for CI systems: one testsuite per
// implementation, one testcase per property, failures with their reproduce
// lines.
#include <ostream>
#include <sstream>

#include "gate/gate.h"
#include "core/report/report_text.h"

namespace ropecheck {

void write_junit(const GateReport& r, std::ostream& os) {
  int tests = 0, failures = 0, skipped = 0;
  for (const auto& i : r.impls)
    for (const auto& [name, s] : i.properties) {
      ++tests;
      const bool failed = s.failed > 0 || i.floor_failure(name);
      failures += failed;
      skipped += !failed && (!s.applicable || (s.passed == 0 && s.failed == 0));
    }
  if (!r.interrupted.empty() || !r.isolated) ++tests;
  if (!r.interrupted.empty()) ++failures;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << "<testsuites name=\"ropecheck check\" tests=\"" << tests << "\" failures=\"" << failures
     << "\" skipped=\"" << skipped << "\" time=\"" << format_number(r.seconds, "%.3f") << "\">\n";
  for (const auto& i : r.impls) {
    int f = 0, sk = 0;
    for (const auto& [name, s] : i.properties) {
      const bool failed = s.failed > 0 || i.floor_failure(name);
      f += failed;
      sk += !failed && (!s.applicable || (s.passed == 0 && s.failed == 0));
    }
    os << "  <testsuite name=\"" << xml_escape(i.name) << "\" tests=\"" << i.properties.size()
       << "\" failures=\"" << f << "\" skipped=\"" << sk << "\">\n";
    os << "    <properties><property name=\"suite\" value=\"" << suite_name(r.suite)
       << "\"/><property name=\"seed\" value=\"" << r.seed << "\"/><property name=\"isolation\" value=\""
       << (r.isolated ? "on" : "off") << "\"/></properties>\n";
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
      } else if (const std::string* floor = i.floor_failure(name)) {
        os << "      <failure message=\"" << xml_escape(*floor) << "\"/>\n";
      } else if (s.passed == 0) {
        os << "      <skipped message=\"every case outside the declared capabilities\"/>\n";
      }
      os << "      <system-out>" << s.passed << " passed, " << s.failed << " failed, " << s.skipped
         << " skipped; worst " << format_number(s.worst_units) << " of budget</system-out>\n";
      os << "    </testcase>\n";
    }
    os << "  </testsuite>\n";
  }
  if (!r.interrupted.empty() || !r.isolated) {
    // The run itself: interrupted (a partial report), or not isolated.
    os << "  <testsuite name=\"ropecheck\" tests=\"1\" failures=\"" << !r.interrupted.empty()
       << "\" skipped=\"0\">\n    <testcase classname=\"ropecheck\" name=\"run\">\n";
    if (!r.interrupted.empty())
      os << "      <failure message=\"" << xml_escape("interrupted by " + r.interrupted + " after " +
                                                 std::to_string(r.cases) + " of " + std::to_string(r.planned_cases) +
                                                 " cases: a partial report, no verdict")
         << "\"/>\n";
    if (!r.isolated) os << "      <system-out>" << xml_escape(kNoIsolationNote) << "</system-out>\n";
    os << "    </testcase>\n  </testsuite>\n";
  }
  os << "</testsuites>\n";
}

}  // namespace ropecheck
