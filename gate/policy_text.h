// SPDX-License-Identifier: MIT
// A kernel's declared precision policy in one line ("freq f64, angle ...,
// math f32 ...", docs/ERROR_MODEL.md), as `ropecheck list` and the gate's
// reports print it.
#ifndef ROPECHECK_GATE_POLICY_TEXT_H_
#define ROPECHECK_GATE_POLICY_TEXT_H_

#include <string>

#include "ropecheck/policy.h"

namespace ropecheck {

std::string policy_text(const Policy& policy);

}  // namespace ropecheck

#endif  // ROPECHECK_GATE_POLICY_TEXT_H_
