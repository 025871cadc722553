// SPDX-License-Identifier: MIT
// A case the kernel declined (ABI 1.7, ROPECHECK_CAP_MAY_DECLINE): a table
// granting it may return ROPECHECK_UNSUPPORTED for a case inside its
// capabilities, with the reason in its message; that call is a skip, never
// a failure, and every other non-OK status still fails. The judge and the
// properties that call a kernel ask here, so a declined case is skipped by
// every one of them and counted by its reason.
#ifndef ROPECHECK_CORE_KERNEL_DECLINED_CALL_H_
#define ROPECHECK_CORE_KERNEL_DECLINED_CALL_H_

#include <string>

#include "core/kernel/kernel_call.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// "declined by the kernel: <its reason>" when `impl` grants MAY_DECLINE and
// `run` is a clean UNSUPPORTED (no misbehaviour seen); empty otherwise.
std::string declined_by_kernel(const ropecheck_impl_t& impl, const KernelRun& run);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_DECLINED_CALL_H_
