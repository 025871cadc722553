// SPDX-License-Identifier: MIT
// The gate report's tables, each built in one place (summary_table.cc,
// report_precision.cc) and rendered as markdown by print_summary,
// print_slack and print_within, and as sortable HTML by write_html_report.
#ifndef ROPECHECK_GATE_GATE_TABLES_H_
#define ROPECHECK_GATE_GATE_TABLES_H_

#include <vector>

#include "gate/gate.h"
#include "core/report/report_table.h"

namespace ropecheck {

// Per implementation: verdict, conformance cases judged, passed, failed,
// skipped and redrawn, properties passed / failed, its policy.
ReportTable kernel_table(const GateReport& r);
// Conformance per family.
ReportTable conformance_table(const GateReport& r);
// Conformance per size class x memory layout.
ReportTable shapes_table(const GateReport& r);
// Per implementation and property.
ReportTable properties_table(const GateReport& r);
// The fused parts per form; no rows when no kernel is fused.
ReportTable fused_table(const GateReport& r);
// Cases outside the declared capabilities: redrawn, or skipped per reason;
// no rows when none.
ReportTable skipped_table(const GateReport& r);
// Accuracy against context length per implementation and dtype
// (gate/accuracy.h): per position range the worst ulps against the
// correctly rounded result and the error beyond the final rounding, and how
// far each stays within kReachUlps.
ReportTable accuracy_table(const GateReport& r);
// Error / budget and ulps per position range over all dtypes (the verdict's
// measure: the last rounding reaches 1 for every kernel, so only the HTML
// report's verdict section and the JSON keep it).
ReportTable budget_by_range_table(const GateReport& r);
// Slack per budget term, and the fused parts' budgets (the second table has
// no rows without a fused kernel).
std::vector<ReportTable> slack_tables(const GateReport& r);
// Per implementation and dtype: how far it stays within `ulps`, with the
// first position beyond and its reproduce line.
ReportTable within_table(const GateReport& r, double ulps);

}  // namespace ropecheck

#endif  // ROPECHECK_GATE_GATE_TABLES_H_
