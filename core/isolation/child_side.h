// SPDX-License-Identifier: MIT
// The child's half of core/isolation/child_process.h and core/isolation/worker.h: the page it
// shares with the parent, its preparation once after fork() (own process
// group, death with the parent, exit hooks that record a status, the
// alternate signal stack), what it re-arms before every call (signal
// handlers that name a crash, the signal mask, the allocation hook, the
// memory limit, the guard pages of a worker's buffers) and what it checks
// after one (timers left armed). Internal to core/.
#ifndef ROPECHECK_CORE_ISOLATION_CHILD_SIDE_H_
#define ROPECHECK_CORE_ISOLATION_CHILD_SIDE_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/isolation/child_process.h"

namespace ropecheck {

enum class FaultKind : int { kNone = 0, kGuard, kNull, kStack, kOther, kReadOnlyInput };

inline constexpr int kMaxGuards = 64;

// Written by the child, read by the parent once the child is dead or, for a
// worker, stopped (core/isolation/worker.h). The parent writes the call's part (the
// guard table, the range to arm, the sequence number) before each call.
struct ChildShared {
  int returned;
  int status;
  int exit_called, exit_status;  // exit() inside the body
  int quick_exit_called, quick_exit_status;
  int allocation_refused;  // operator new failed (the memory limit)
  int fault_kind;          // FaultKind of the first SIGSEGV/SIGBUS
  int fault_guard;         // index into the guard table for kGuard, or the read-only range for kReadOnlyInput
  int fault_errno;         // errno when the fault hit (ENOMEM: a failed allocation)
  std::uintptr_t fault_addr;
  // The guard pages of the call's buffers, [begin, end) each: a fault inside
  // one is named by ChildOptions::guards[i].name.
  int guards;
  std::uintptr_t guard_begin[kMaxGuards], guard_end[kMaxGuards];
  // A worker only: read-write but for the guard pages and read-only ranges
  // (the layout of the buffers changes with the call; the worker changes
  // only what differs from the protections it set before, arm_layout).
  std::uintptr_t arm_begin, arm_end;
  // Made read-only (PROT_READ) for the call (a worker: unless it has kept
  // them so since; ChildOptions::read_only_begin).
  std::uintptr_t read_only_begin[ChildOptions::kReadOnlyRanges], read_only_end[ChildOptions::kReadOnlyRanges];
  std::uint64_t seq;       // the call the parent asked for
  std::uint64_t done_seq;  // the call the worker answered
  int arm_errno;           // mprotect() failed while arming: the call did not run
  int lost_channel;        // the body closed or replaced the socket the child answers on
  int state_left;          // 1: a timer (alarm, setitimer, timer_create) armed after the body returned; 2: a signal pending
  // What the body left changed of the floating-point control state
  // (core/isolation/fp_env.h), described; empty when nothing. Every call starts in
  // the default state (arm_call).
  char fp_left[192];
  // The address-space limit the process was started with (RLIMIT_AS's soft
  // value, as ropecheck inherited it: `ulimit -v`), 0 for none. Below what
  // --memory-limit would grant, it is the limit a call meets, and a failed
  // allocation is named by it.
  std::uint64_t inherited_as;
  std::uint64_t vm_base;   // the worker's address space when it started (bytes)
  std::uint64_t vm_after;  // and after its last call
  // 1 when the child holds its descendants (core/isolation/descendant_hold.h):
  // whatever the call leaves running is found under the child. Otherwise
  // hold_failure says why, and a process found among ropecheck's own
  // children is blamed on this call only by elimination.
  int descendants_held;
  char hold_failure[160];
  char message[1024];
};

// Fills the guard table from o.guards (at most kMaxGuards are named).
void set_guard_table(ChildShared* shared, const ChildOptions& o);

// In the child, right after fork(): never returns on failure (it _exits).
// memory_headroom_gib: a child per call may add that much address space to
// what it inherits; a worker's hard limit is twice that, and each of its
// calls gets the soft limit of what it holds plus that much.
void prepare_child(ChildShared* shared, pid_t parent, double memory_limit_gib, bool worker);
// Before every call in the child: what the body (this call's, or an earlier
// call's in a worker) may have changed is set again.
void arm_call(ChildShared* shared, double memory_limit_gib, bool worker);

// Right after the body returned: every signal blocked, so one that its
// work raises now (an alarm it left armed) waits, pending, where the checks
// after the call see it (ChildShared::state_left), instead of ending the
// process and failing a call that returned. The next call's arm_call
// unblocks them; a worker holding one is replaced first.
void hold_signals_after_body();
// After the body: what it wrote through stdio reaches ropecheck's standard
// error (where a child's standard output points, prepare_child) before the
// process is stopped or killed.
void flush_kernel_output();
// After the body returned: what it left changed of the floating-point
// control state, into shared->fp_left.
void record_fp_left(ChildShared* shared);

// In a child per call, between a decoy call and the judged one: timers
// disarmed and deleted, pending signals discarded, then arm_call.
void settle_for_next_call(ChildShared* shared, double memory_limit_gib);

// A child per call's answer once its body returned: a byte on fd (the
// child _exits, lost_channel set, when the body closed fd).
void answer_once(ChildShared* shared, int fd);

// A worker's loop: waits for a byte on fd, runs the body, answers with a
// byte, for as long as the parent lives (core/isolation/worker.h).
[[noreturn]] void serve_calls(ChildShared* shared, int fd, double memory_limit_gib,
                              const std::function<int(char* message, std::size_t size)>& body);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_CHILD_SIDE_H_
