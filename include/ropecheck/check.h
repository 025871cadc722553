// `ropecheck check`: the conformance gate over a suite of cases, its
// aggregation per implementation x case family and position range, and the
// summary table with a reproduce command for every failure.
#ifndef ROPECHECK_CHECK_H_
#define ROPECHECK_CHECK_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ropecheck/cases.h"
#include "ropecheck/conformance.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

struct CheckOptions {
  Suite suite = Suite::kQuick;
  std::uint64_t seed = 1;
  std::optional<int> only_case;  // run one case (reproduce)
  std::optional<int> cases;      // run the first N cases instead of the suite's size
  std::vector<const ropecheck_impl_t*> impls;
  // Called after each case with (done, total); may be empty.
  std::function<void(int, int)> progress;
};

struct FamilyStats {
  int cases = 0, passed = 0, failed = 0, skipped = 0;
  double worst_units = 0, worst_ulps = 0;
};

struct FailureRecord {
  int case_index = 0;
  std::string family;
  std::string message;
  std::string case_description;
  std::string reproduce;
};

struct ImplReport {
  std::string name;
  std::map<std::string, FamilyStats> families;
  std::array<BinStats, kPositionBins> bins{};
  std::vector<FailureRecord> failures;
  bool passed() const { return failures.empty(); }
};

struct CheckReport {
  Suite suite = Suite::kQuick;
  std::uint64_t seed = 0;
  int cases = 0;
  double seconds = 0;
  std::vector<ImplReport> impls;
  bool passed() const;
};

CheckReport run_check(const CheckOptions& opts);
std::string reproduce_command(const std::string& impl, Suite suite, std::uint64_t seed, int index);
// Markdown tables: per implementation x family, then error against position.
void print_summary(const CheckReport& r, std::ostream& os);
void print_failures(const CheckReport& r, std::ostream& os, int max_per_impl = 5);

}  // namespace ropecheck

#endif  // ROPECHECK_CHECK_H_
