// SPDX-License-Identifier: MIT
// Persistent worker threads for the SIMD kernels' threaded paths (and for the
// benchmark's baselines, so kernels and baselines pay the same hand-off).
// Starting a std::thread per call costs tens of microseconds, as much as a
// whole decode batch; the workers here are started once and wait between
// calls, spinning briefly before they sleep.
#ifndef ROPECHECK_IMPLS_SIMD_WORKER_POOL_H_
#define ROPECHECK_IMPLS_SIMD_WORKER_POOL_H_

#include <functional>

namespace ropecheck::impl {

// Runs task(0) on the calling thread and task(1) .. task(n - 1) on workers,
// and returns when all n have returned. Tasks must not throw. Safe to call
// from several threads at once (a caller that finds the workers busy runs its
// tasks itself, one after the other) and after fork(): a child (where
// ropecheck isolates a call) starts its workers per call and joins them
// before returning, so it leaves no thread running.
void run_parallel(int n, const std::function<void(int)>& task);

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_SIMD_WORKER_POOL_H_
