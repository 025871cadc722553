// Invariants every RoPE implementation must satisfy, each a function of
// (implementation, case). The same definitions run under RapidCheck (random
// cases that shrink to a minimal counterexample) and inside `ropecheck check`
// (the deterministic grid, with a reproduce line per failure).
#ifndef ROPECHECK_PROPERTIES_PROPERTY_H_
#define ROPECHECK_PROPERTIES_PROPERTY_H_

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ropecheck/cases.h"
#include "ropecheck/conformance.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::prop {

struct PropertyResult {
  Outcome outcome = Outcome::kPass;
  std::string message;     // why it failed or was skipped
  double worst_units = 0;  // worst observed error / its budget (pass <= 1)
  static PropertyResult skip(std::string why) { return {Outcome::kSkipped, std::move(why), 0}; }
  static PropertyResult fail(std::string why, double units = HUGE_VAL) {
    return {Outcome::kFail, std::move(why), units};
  }
};

struct Property {
  const char* name;     // reads as a sentence after "Rope/": PreservesPairNorm
  const char* summary;  // one line: what it checks and why it matters
  PropertyResult (*check)(const ropecheck_impl_t& impl, const Case& c);
  // Capability flags and layouts the property needs at all (e.g. both
  // layouts for layout equivariance); an implementation without them is
  // reported as not applicable rather than run.
  std::uint32_t needs_flags = 0;
  std::uint32_t needs_layouts = 0;
};

// Empty when the property applies to the implementation, else why not.
std::string not_applicable(const Property& p, const ropecheck_impl_t& impl);

// Every kernel property, conformance first.
std::span<const Property> kernel_properties();
const Property* find_property(std::string_view name);

}  // namespace ropecheck::prop

#endif  // ROPECHECK_PROPERTIES_PROPERTY_H_
