// SPDX-License-Identifier: MIT
// The status an isolated call returns through the ABI: the kernel's own, or
// INTERNAL_ERROR with what isolation found wrong, kept as the calling
// thread's finding (take_isolation_finding, core/isolation/isolation.h).
#ifndef ROPECHECK_CORE_ISOLATION_CALL_VERDICT_H_
#define ROPECHECK_CORE_ISOLATION_CALL_VERDICT_H_

#include <cstddef>
#include <functional>

#include "core/isolation/child_process.h"
#include "core/isolation/guarded_copies.h"
#include "core/isolation/isolated_call.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// The status of the call: the kernel's own, or INTERNAL_ERROR naming what
// isolation saw go wrong (the run's failure, else damage to the buffers in
// `b` when given: `call`, when given, is then retired). The message goes
// into err (n bytes).
ropecheck_status_t call_verdict(const ChildRun& run, const GuardedCopies* b, IsolatedCall* call, char* err,
                                std::size_t n);

// Params the kernel must refuse anyway: it does so in a child of its own
// with the caller's pointers (nothing is copied back), whatever the mode.
ropecheck_status_t refuse_in_child(const Isolated& w, const std::function<int(char*, std::size_t)>& body, char* err,
                                   std::size_t n);

// Isolation could not map the memory a call's copies need (an address-space
// limit, ulimit -v, below what they take): the call is not made, and says so.
ropecheck_status_t unmappable(char* err, std::size_t n);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_CALL_VERDICT_H_
