// Crash isolation: every call of a kernel runs in a forked child process on
// copies of its buffers placed in guarded shared memory, so a kernel that
// crashes, reads or writes out of bounds, or hangs becomes a failing call
// (status ROPECHECK_INTERNAL_ERROR with the reason) and the gate goes on.
//   - every buffer ends exactly at a PROT_NONE guard page (overruns fault)
//     and starts after one, with the slack before it canary-filled (an
//     underrun within the page is caught when the child returns);
//   - a call that runs past the timeout is killed (SIGKILL) and reported;
//   - out-of-place outputs arrive holding the canary pattern (a
//     NaN in every dtype), so an element the kernel never writes is judged
//     as a wrong value: the poison.
#ifndef ROPECHECK_CORE_ISOLATION_H_
#define ROPECHECK_CORE_ISOLATION_H_

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

struct IsolationOptions {
  double timeout_seconds = 10;
};

// A table with the same name, capabilities and policy whose apply and
// build_cache run `inner` isolated. The wrapper lives for the process.
// Kernels that cannot be called in a forked child (the registry says which:
// a CUDA context does not survive fork()) are not wrapped by the caller.
const ropecheck_impl_t* isolate(const ropecheck_impl_t* inner, const IsolationOptions& o);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_H_
