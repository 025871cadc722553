// Conformance of an implementation with the reference on one case: the
// reference output is computed once per case, then every implementation is
// run on fresh copies of the same input bits and judged element by element
// against its own error budget (declared policy) and reported against the
// correctly rounded exact result.
#ifndef ROPECHECK_CONFORMANCE_H_
#define ROPECHECK_CONFORMANCE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ropecheck/cases.h"
#include "ropecheck/error_model.h"
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
  std::string format() const;
};

enum class Outcome { kPass, kFail, kSkipped };

struct CaseOutcome {
  Outcome outcome = Outcome::kPass;
  std::string message;  // why skipped or failed
  double worst_units = 0;
  double worst_ulps = 0;
  std::int64_t violations = 0;
  std::optional<Violation> first;
  std::array<BinStats, kPositionBins> bins{};
};

// Skip reason when the case lies outside the implementation's declared
// capabilities (or the harness's cache limit); empty when it is in scope.
std::string out_of_scope(const ropecheck_impl_t& impl, const Case& c);

class CaseRunner {
 public:
  explicit CaseRunner(const Case& c);  // builds inputs and the reference output
  ~CaseRunner();
  CaseOutcome run(const ropecheck_impl_t& impl) const;
  const Case& spec() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CONFORMANCE_H_
