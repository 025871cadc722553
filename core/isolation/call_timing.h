// SPDX-License-Identifier: MIT
// Timing one kernel call where it runs (`ropecheck bench`, issue #35): the
// clock read right before apply and right after it returns, on buffers
// prepared in the caches as the caller asks, with the threads the call
// started accounted for. A kernel that returns while a thread it started
// still works (its work finishes after a timer stopped at the return) is
// timed until those threads end and counted (threads_working): the caller
// names it a failure, not a speed.
// An isolated call (core/isolation/isolation.h, worker mode) is timed in its
// worker, a process that runs nothing else, so every thread found there
// after the call is the call's; the result travels back in the request page
// the worker shares with ropecheck (core/isolation/worker_slot.h).
#ifndef ROPECHECK_CORE_ISOLATION_CALL_TIMING_H_
#define ROPECHECK_CORE_ISOLATION_CALL_TIMING_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Where the call's buffers (q and k in and out, the position ids, the
// cos/sin cache) are when the clock starts:
//   kWarm  every cache line of them was just read by the thread that calls
//          apply: a kernel running on tensors the layer before it just
//          wrote, and what a loop timing the same buffers over and over
//          (bench/rope_bench.cc) sees;
//   kCold  every line was flushed from every cache level (clflush on
//          x86-64, DC CIVAC on AArch64): they come from memory.
enum class CacheState : std::uint32_t { kWarm, kCold };
const char* cache_state_name(CacheState c);
// Whether this build can flush a line from the caches (kCold).
bool can_flush_caches();

struct CallTiming {
  CacheState caches = CacheState::kWarm;  // asked by the caller
  // What was measured. false: the call was not timed (a child per call,
  // whose request page is its own copy, or a call that never returned).
  bool measured = false;
  // From the call of apply to its return, or to the end of the last thread
  // still working when it returned.
  std::uint64_t nanoseconds = 0;
  // Threads of the call's process, the calling one aside, still working
  // (neither dead nor exiting) when apply returned; -1 when that is not
  // known (a call in ropecheck's own process, whose other threads are
  // ropecheck's).
  std::int32_t threads_working = 0;
};

// While a CallTiming is set (not null), every apply of an isolated kernel
// the calling thread makes in a worker is timed there (run_timed) and the
// timing written into it; null stops. Other calls leave it untouched.
void time_calls(CallTiming* t);
CallTiming* timed_calls();

// How long run_timed waits for threads still working when apply returned
// before it stops the clock anyway (the call then fails on those threads:
// isolation names what is left running).
inline constexpr double kThreadWaitSeconds = 1.0;

// Runs in.apply(p) on buffers prepared as t->caches asks and fills *t;
// `err` is the message buffer handed to apply.
// own_process: nothing else runs in the calling process (an isolated
// worker), so the threads found there after the call are the call's.
ropecheck_status_t run_timed(const ropecheck_impl_t& in, const ropecheck_apply_params_t* p, std::span<char> err,
                             CallTiming* t, bool own_process);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_CALL_TIMING_H_
