// SPDX-License-Identifier: MIT
// The floating-point control state a kernel may change and must give back:
// the rounding mode, and on x86-64 the SSE control bits (flush-to-zero,
// denormals-are-zero, exception masks, MXCSR) and the x87 control word.
// A kernel that returns with any of them changed corrupts its caller's
// arithmetic: in ropecheck's own process (--no-isolation) the exact
// reference's error-free transformations assume round-to-nearest and
// gradual underflow, and a worker would run its next call in that state.
// Exception flags (sticky status bits) are not control state and are
// ignored. Async-signal-safe; no allocation but in describe().
#ifndef ROPECHECK_CORE_ISOLATION_FP_ENV_H_
#define ROPECHECK_CORE_ISOLATION_FP_ENV_H_

#include <cstdint>
#include <string>

namespace ropecheck {

struct FpControl {
  int rounding = 0;          // fegetround()
  std::uint32_t mxcsr = 0;   // x86-64: MXCSR without its six status flags; 0 elsewhere
  std::uint16_t x87_cw = 0;  // x86-64: the x87 control word; 0 elsewhere
  bool operator==(const FpControl&) const = default;
};

FpControl fp_control_now();
// The state every thread of a process starts with (round to nearest, no
// flush to zero, every exception masked).
FpControl fp_control_default();
void set_fp_control(const FpControl& c);
// "rounding mode upward (was to nearest); flush-to-zero set in MXCSR": what
// differs, empty when nothing does.
std::string describe_fp_change(const FpControl& before, const FpControl& after);

// The failure of a call that left `change` (describe_fp_change) behind.
std::string fp_left_failure(const std::string& change);
// After a call made in this thread: "" when the control state is `before`,
// else the call's failure (fp_left_failure), the state given back first.
std::string restore_fp_control(const FpControl& before);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_FP_ENV_H_
