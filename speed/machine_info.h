// SPDX-License-Identifier: MIT
// Where and when a bench ran, for its report (bench/RESULTS.md states a
// figure's command, machine and date): the CPU's model, the cores this
// process may use and the SIMD target the baselines dispatch to; the UTC
// date; the load averages, which say whether the figures were taken on a
// quiet machine.
#ifndef ROPECHECK_SPEED_MACHINE_INFO_H_
#define ROPECHECK_SPEED_MACHINE_INFO_H_

#include <string>

namespace ropecheck::speed {

std::string machine_description();
std::string utc_date_time();  // "2026-11-27T10:30:00Z"
std::string load_averages();  // "0.47 0.52 0.60" (1, 5, 15 minutes), "" when unknown

}  // namespace ropecheck::speed

#endif  // ROPECHECK_SPEED_MACHINE_INFO_H_
