// SPDX-License-Identifier: MIT
// The judge: one kernel run compared with the exact result, element by
// element, against the budget of the implementation's declared policy
// (core/error_model/error_model.h), and reported against the correctly rounded exact
// result. The gate's conformance property and the golden verifier both
// judge through it.
#ifndef ROPECHECK_CORE_JUDGE_JUDGE_H_
#define ROPECHECK_CORE_JUDGE_JUDGE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/kernel/kernel_call.h"
#include "core/judge/budget_table.h"
#include "core/judge/reference_result.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Context-length bins of the report: below 2^10, 2^10..2^16, 2^16..2^20, above.
inline constexpr int kPositionBins = 4;
int position_bin(std::int64_t position);
const char* position_bin_name(int bin);

struct BinStats {
  std::int64_t elements = 0;
  double worst_units = 0;  // |err| / budget, max over elements
  double worst_ulps = 0;   // |got - correctly rounded exact| in ulps of the storage dtype
};

struct Violation {
  std::string tensor;  // "q" or "k"
  std::int64_t token = 0;
  int head = 0;
  int channel = 0;
  std::int64_t position = 0;
  double got = 0, expected = 0, budget = 0;
  std::string what;
  std::string detail;  // the budget's breakdown, when the value was judged by it
  // The values' bits as stored (bits_bytes of them, 0 where not known): a
  // NaN's payload, or which zero, is what tells two stored values apart
  // when their doubles cannot (issue #49: "got nan (nan), expected nan (nan)"
  // for a signalling NaN a kernel quieted). expected_bytes 0: expected is a
  // reference value, a double of its own.
  std::uint64_t got_bits = 0, expected_bits = 0;
  int got_bytes = 0, expected_bytes = 0;
  std::string format() const;
};

// "2.5 (0x1.4p+1)", or for a NaN or a zero with its stored bits known,
// "nan (bits 0x7fa00000)" / "-0 (bits 0x8000)".
std::string value_text(double v, std::uint64_t bits = 0, int bytes = 0);
// The bits of element i of a buffer of dtype t (little-endian), and their width.
std::uint64_t stored_bits(const unsigned char* base, std::size_t i, ropecheck_dtype_t t);

enum class Outcome { kPass, kFail, kSkipped };

// Worst error at one position of a case, for the error-versus-position plot.
struct PositionPoint {
  std::int64_t position = 0;
  double worst_units = 0;
  double worst_ulps = 0;
  // |err| in ulps of the storage dtype at the pair's magnitude m r: a
  // rotation's error scales with the pair, not with one (maybe cancelling)
  // element, so "within N ulps up to position P" is read from this.
  double worst_pair_ulps = 0;
};

struct CaseOutcome {
  Outcome outcome = Outcome::kPass;
  std::string message;  // why skipped or failed
  double worst_units = 0;
  double worst_ulps = 0;
  // Sum of |error| / budget over the rotated elements judged, and their
  // count: how much of its budgets a kernel fills on average, which orders
  // policies by tightness where the worst element of each fills its own
  // (ropecheck.policies, check --policies).
  double sum_units = 0;
  std::int64_t units_elements = 0;
  std::int64_t violations = 0;
  // Elements with an input beyond the model's overflow-free domain: checked
  // for crashes only (docs/ERROR_MODEL.md, "Non-finite and huge inputs").
  std::int64_t outside_domain = 0;
  std::optional<Violation> first;
  std::array<BinStats, kPositionBins> bins{};
  // Per budget term (error_model.h, dominant_term): the worst |err| / budget
  // over the elements whose budget that term dominates, and their count.
  std::array<double, kBudgetTermCount> worst_by_term{};
  std::array<std::int64_t, kBudgetTermCount> elements_by_term{};
  std::vector<PositionPoint> points;  // one per distinct position of the case
  // Tokens of the case, and those whose rotated elements were judged
  // against the reference (fewer on a sampled large case: judged_tokens).
  std::int64_t tokens = 0, judged_tokens = 0;
};

// What a run is judged on: the case, the inputs the kernel was called on
// and their exact result.
struct JudgedCase {
  const Case& c;
  const QkBuffers& in;
  const ReferenceResult& ref;
};

// How much of a CaseOutcome a judging fills in. kFull: all of it. kVerdict:
// the verdict alone (outcome, message, violations and the first of them,
// outside_domain, tokens; no statistics, which stay zero), the same verdict
// as kFull's, for a caller that reads nothing else (the differential
// fuzzer): a pair's budgets are worked out only for an element whose error
// exceeds ErrorModel::budget_floor, which most elements of a correct
// kernel's output are within (core/test/verdict_depth_test.cc). The same
// wherever the budgets are numbers: a NaN budget (ropecheck's own bug)
// fails every element at kFull, only those past the floor here.
enum class JudgeDepth { kFull, kVerdict };

// Judges one run against the reference, element by element: rotated
// elements within the budget of the implementation's declared policy,
// pass-through channels bit-identical to the input, padding untouched.
// `budgets`: budget_table(case_error_model(impl, c, ...), ref), when the
// caller holds it already (the gate shares one per case and model).
CaseOutcome judge(const ropecheck_impl_t& impl, const JudgedCase& j, const KernelRun& run,
                  const BudgetTable* budgets = nullptr, JudgeDepth depth = JudgeDepth::kFull);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_JUDGE_JUDGE_H_
