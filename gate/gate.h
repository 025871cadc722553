// SPDX-License-Identifier: MIT
// The gate (what `ropecheck check` runs): every kernel property
// (conformance first) over a suite of cases, aggregated per implementation
// x case family, per implementation x property and per position range, with
// a reproduce command for every failure; and its report in the formats CI
// and reviewers read (summary_table.cc, junit_report.cc, html_report.cc).
#ifndef ROPECHECK_GATE_GATE_H_
#define ROPECHECK_GATE_GATE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/cases/cases.h"
#include "core/config/config.h"
#include "core/judge/judge.h"
#include "gate/run_header.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The largest case count, case index + 1, shard count or judged floor any
// option takes (--cases, --case, --shard, --min-judged; a report read back
// is held to it too): one bound, far above any suite (exhaustive: 10^4).
inline constexpr int kMaxCaseCount = 10000000;

struct GateOptions {
  Suite suite = Suite::kQuick;
  std::uint64_t seed = 1;
  std::optional<int> only_case;  // run one case (reproduce)
  std::optional<int> cases;      // run the first N cases instead of the suite's size
  std::vector<const ropecheck_impl_t*> impls;
  std::vector<std::string> properties;  // names; empty: all kernel properties
  // A model's rope configs (--config; config_variants of core/config/model_rope.h:
  // one per layer type and sequence-length boundary): case i keeps its
  // grid-drawn positions, dtype, heads and strides but uses the scheme and
  // head shape of configs[i % configs.size()] (and its layout, when the
  // config states one). Empty: the cases' own.
  std::vector<RopeConfig> configs;
  std::string config_path;  // repeated in reproduce lines
  // Appended to every reproduce line, per implementation name (e.g.
  // "--plugin /abs/libmine.so" for a plugin's kernels).
  std::map<std::string, std::string> reproduce_args;
  // Set before every reproduce line: what the built-in kernels need to take
  // the same path ("ROPECHECK_SIMD_TARGET=AVX2 " for a run pinned to a SIMD
  // target; impls/registry.h says it, the command line passes it on).
  std::string reproduce_environment;
  // Stop after the first case on which any implementation fails (every
  // property still runs on that case): how `ropecheck mutants` times a kill.
  // The floor below is not applied to a run stopped early.
  bool stop_at_first_failing_case = false;
  // The verdict floor (--min-judged): every implementation must be judged
  // (pass or fail, not skipped) on at least this many cases of every
  // property that applies to it, or it fails with the reason. A property the
  // run's cases give nothing to check (no pass-through channels in any case,
  // say) and that the implementation never declined is exempt: no case could
  // have judged it. A kernel cannot decline its way to a pass.
  int min_judged = 1;
  // False under --no-isolation: the report says what that gives up.
  bool isolated = true;
  // --shard i/n: only the cases whose index % n == i - 1 (1 <= i <= n), so
  // n machines split a suite and merge_reports joins their reports.
  int shard_index = 1, shard_count = 1;
  // --jobs N: cases run on N threads; the report is built in case order, so
  // it is the same for every N.
  int jobs = 1;
  // A case drawn outside what a kernel declares is redrawn within it
  // (core/cases/case_fit.h) instead of skipped: its dtype, layout,
  // direction, placement and position dtype (redraw), its scheme
  // (redraw_schemes). Off where a caller splits one kernel's run into parts
  // that together cover the suite once (the pytest plugin's test per scheme,
  // the framework table's row per dtype and layout).
  bool redraw = true, redraw_schemes = true;
  // Called after each case with (done, total); may be empty.
  std::function<void(int, int)> progress;
};

struct FamilyStats {
  int cases = 0, passed = 0, failed = 0, skipped = 0;
  double worst_units = 0, worst_ulps = 0;
  // CaseOutcome::sum_units and units_elements added up (this run's; a
  // merge of shards' JSON reports does not carry them).
  double sum_units = 0;
  std::int64_t units_elements = 0;
  int sampled = 0;  // of the judged: on a seeded sample of their tokens (judged_tokens)
};

struct PropertyStats {
  int cases = 0, passed = 0, failed = 0, skipped = 0;
  int declined = 0;  // of the skipped: outside the declared capabilities
  double worst_units = 0;
  bool applicable = true;
  std::string not_applicable;
};

// A bucket's worst point and the case it came from: ties go to the later
// case (then the larger position), a rule shards can merge exactly.
struct CurvePoint : PositionPoint {
  int case_index = -1;
};

struct FailureRecord {
  int case_index = 0;
  std::string property;
  std::string family;
  std::string message;
  std::string case_description;
  std::string reproduce;
  double worst_units = 0;  // the case's worst error / budget (inf: no budget judged it)
  // The first wrong element as the judge found it (where, got, expected,
  // budget and its terms), when the judge judged the failing case and an
  // element was wrong; the report shows it field by field.
  std::optional<Violation> element;
};

// The worst error at one position, in ulps of a storage dtype at the pair's
// magnitude (PositionPoint::worst_pair_ulps), and the case it was seen in;
// beside it the worst in ulps against the correctly rounded exact result
// (PositionPoint::worst_ulps). gate/accuracy.h reads both.
struct UlpsAt {
  double worst_ulps = 0;
  int case_index = 0;
  double worst_rounded_ulps = 0;
};

struct ImplReport {
  std::string name;
  // Applicable properties judged on fewer than GateOptions::min_judged
  // cases: (property, why).
  std::vector<std::pair<std::string, std::string>> under_floor;
  const std::string* floor_failure(const std::string& property) const;
  std::string reproduce_args;  // " --plugin PATH" for a plugin's kernel, else empty
  std::string policy;          // the declared policy, as `ropecheck list` prints it (policy_text)
  std::map<std::string, FamilyStats> families;          // conformance, per scheme
  // Conformance per size class and memory layout: "decode head_major".
  std::map<std::string, FamilyStats> shapes;
  // The fused parts (ABI 1.4, 1.5) per form, as their own properties judged
  // them: "K and V cache fp8_e4m3fn NHD, per-head scales" from
  // CachesTheRotatedKAndV, "qk-norm, weight 1 + w" from
  // NormalisesEachHeadThenRotates.
  std::map<std::string, FamilyStats> fused;
  std::vector<std::pair<std::string, PropertyStats>> properties;  // in registry order
  std::array<BinStats, kPositionBins> bins{};
  // Worst conformance error per position bucket (1/16 octave), for plots.
  std::map<int, CurvePoint> curve;
  std::vector<FailureRecord> failures;
  // Conformance cases skipped, by reason (outside the declared capabilities).
  std::map<std::string, int> skipped;
  // Cases drawn in a dtype, layout, scheme, direction, placement or
  // position dtype the kernel does not declare, and redrawn within its
  // declaration (core/cases/case_fit.h) rather than skipped.
  int redrawn = 0;
  // Per budget term: worst error / budget where it dominates, element count.
  std::array<double, kBudgetTermCount> worst_by_term{};
  std::array<std::int64_t, kBudgetTermCount> elements_by_term{};
  // Per storage dtype and |position|: the worst pair ulps (report_precision.cc).
  std::map<int, std::map<std::int64_t, UlpsAt>> ulps_by_position;
  bool passed() const { return failures.empty() && under_floor.empty(); }
};

// The run's header (gate/run_header.h) and this shard's counts.
struct GateReport : RunHeader {
  std::string reproduce_environment;  // GateOptions' (not written into --json)
  int cases = 0;            // cases run (this shard's)
  int planned_cases = 0;    // what the run (this shard) set out to do
  int shard_index = 1;
  double seconds = 0;       // wall time; a merge adds the shards'
  // True when the run stopped at its first failing case (the floor is then
  // not applied).
  bool stopped_early = false;
  // "SIGINT" when the run was interrupted: a partial report, never a pass.
  std::string interrupted;
  std::vector<ImplReport> impls;
  bool passed() const;
};

// What --no-isolation gives up, printed in that run's report.
extern const char* const kNoIsolationNote;

GateReport run_gate(const GateOptions& opts);
// Sets every ImplReport::under_floor from the report's counts and
// min_judged (nothing for an interrupted run or one stopped early): run_gate
// applies it to its cases (a shard's own), merge_reports to the whole run.
void apply_verdict_floor(GateReport& r);
// The report of the whole run from its n shard reports (any order): the same
// tables, failures and verdicts as one unsharded run. Throws
// std::invalid_argument naming the field when the reports do not belong
// together (suite, seed, shard count, implementations, properties...) or a
// shard is missing or repeated.
GateReport merge_reports(const std::vector<GateReport>& shards);
// The command that runs case `index` again (the environment a run needs
// comes first, GateOptions::reproduce_environment).
std::string reproduce_command(const RunHeader& run, const std::string& impl, int index,
                              const std::string& property = {});
// Markdown tables (gate/gate_tables.h): a row per implementation,
// conformance per implementation x family, size classes and layouts,
// properties, fused parts, skips, then accuracy against context length per
// dtype (gate/accuracy.h).
void print_summary(const GateReport& r, std::ostream& os);
void print_failures(const GateReport& r, std::ostream& os, int max_per_impl = 5);
// Per implementation and case family, the failing case with the largest
// error (in budgets), with its reproduce line.
void print_worst_failures(const GateReport& r, std::ostream& os);
// Per implementation and term of the budget (docs/ERROR_MODEL.md), the worst
// error / budget over the elements that term dominates: how tight each term
// is (a slack below 0.25 says the budget is loose there).
void print_slack(const GateReport& r, std::ostream& os);
// Per implementation and storage dtype, the |position| up to which every
// element stays within `ulps` (of the dtype, at its pair's magnitude m r) of
// the exact result, and the first position beyond it with its reproduce line.
void print_within(const GateReport& r, double ulps, std::ostream& os);
// JUnit XML (one testsuite per implementation, one testcase per property).
void write_junit(const GateReport& r, std::ostream& os);
// Self-contained HTML (html_report.cc): the verdict, the failures first,
// a row per implementation, accuracy against context length per dtype
// (tables and SVG plots), every table sortable, the verdict's error /
// budget plots and the RoFormer decay curve (decay[r] for r = 0, 1, ...).
void write_html_report(const GateReport& r, const std::vector<double>& decay, std::ostream& os);

}  // namespace ropecheck

#endif  // ROPECHECK_GATE_GATE_H_
