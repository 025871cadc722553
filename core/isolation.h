// Crash isolation: every call of a kernel runs in a child process
// (core/child_process.h) on copies of its buffers placed in guarded shared
// memory, so a kernel that crashes, exits, hangs, writes where it must not,
// or leaves work running becomes a failing call (status
// ROPECHECK_INTERNAL_ERROR, the message starting "isolated call: " and
// naming the cause) and the gate goes on.
//   - every buffer ends exactly at a PROT_NONE guard page (overruns fault,
//     named by the buffer) and starts after one, with the slack before it
//     canary-filled (an underrun within the page is caught afterwards);
//   - every input (q and k when out of place, positions, the cos/sin cache,
//     the frequency spec and its arrays) is copied too, and proven unchanged
//     after the call: "wrote into its input positions";
//   - outputs are copied back only when the call returned OK, after every
//     process it started is dead, so nothing can write into them later;
//   - out-of-place outputs arrive holding what the caller put there (a fresh
//     poison per call, core/kernel_call.h): an element the kernel never
//     writes is judged as that poison.
// Mappings are reused across calls only because no process of an earlier
// call is alive when they are (the sweep of core/process_tree.h).
#ifndef ROPECHECK_CORE_ISOLATION_H_
#define ROPECHECK_CORE_ISOLATION_H_

#include "core/child_process.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

struct IsolationOptions {
  double timeout_seconds = 10;
  double memory_limit_gib = kDefaultMemoryLimitGiB;
};

// A table with the same name, capabilities and policy whose apply and
// build_cache run `inner` isolated. The wrapper lives for the process.
// Kernels that cannot be called in a forked child (the registry says which:
// a CUDA context does not survive fork()) are not wrapped by the caller.
const ropecheck_impl_t* isolate(const ropecheck_impl_t* inner, const IsolationOptions& o);

// The message prefix of a call that isolation failed (not the kernel's own
// status): the judge reports what follows it as the cause.
inline constexpr const char* kIsolatedCallPrefix = "isolated call: ";

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_H_
