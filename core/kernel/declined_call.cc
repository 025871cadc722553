// SPDX-License-Identifier: MIT
// Whether a run is a case the kernel declined (ABI 1.7's MAY_DECLINE), and why.
#include "core/kernel/declined_call.h"

namespace ropecheck {
namespace {
// The skip table counts by message: a reason is a category, kept short.
constexpr std::size_t kMaxReason = 200;
}  // namespace

std::string declined_by_kernel(const ropecheck_impl_t& impl, const KernelRun& run) {
  if (!(impl.caps.flags & ROPECHECK_CAP_MAY_DECLINE) || run.status != ROPECHECK_UNSUPPORTED ||
      !run.misbehaviour.empty())
    return {};
  const std::string why = run.message.empty() ? "no reason given" : run.message.substr(0, kMaxReason);
  return "declined by the kernel: " + why;
}

}  // namespace ropecheck
