// What the gate knows of an implementation beyond its ABI table: limits a
// kernel declares that the C ABI has no field for yet (#33; ABI 1.5 is to
// carry them). A case outside them is skipped and counted by reason, like
// any capability (outside_capabilities in kernel_call.h).
#ifndef ROPECHECK_CORE_KERNEL_IMPL_LIMITS_H_
#define ROPECHECK_CORE_KERNEL_IMPL_LIMITS_H_

#include <cstdint>
#include <string>

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

struct ImplLimits {
  // Positions p with |p| >= max_position are outside (a cos/sin cache of
  // max_position rows, vLLM's); 0: no limit declared.
  std::int64_t max_position = 0;
};

// Declares the limits of the table at `impl` until the matching
// forget_limits (the table's owner calls both; the key is the address).
void declare_limits(const ropecheck_impl_t* impl, const ImplLimits& limits);
void forget_limits(const ropecheck_impl_t* impl);
// The declared limits of `impl`, or none.
ImplLimits limits_of(const ropecheck_impl_t& impl);

// declare_limits for the lifetime of this object.
class ScopedLimits {
 public:
  ScopedLimits(const ropecheck_impl_t* impl, const ImplLimits& limits) : impl_(impl) { declare_limits(impl, limits); }
  ~ScopedLimits() { forget_limits(impl_); }
  ScopedLimits(const ScopedLimits&) = delete;
  ScopedLimits& operator=(const ScopedLimits&) = delete;

 private:
  const ropecheck_impl_t* impl_;
};

// A bad limit names the field and the bound; empty when acceptable.
std::string check_limits(const ImplLimits& limits);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_IMPL_LIMITS_H_
