// SPDX-License-Identifier: MIT
// Running untrusted code in a child process, and proving it is over before
// anything it touched is read. One call in a child of its own (a persistent
// worker that runs many is core/isolation/worker.h, with the same guarantees):
//   - the child runs in a process group of its own, dies with ropecheck
//     (PR_SET_PDEATHSIG), has an address-space limit (setrlimit RLIMIT_AS,
//     the memory limit on top of what it inherits), and names its own death:
//     a handler on an alternate stack classifies a SIGSEGV or SIGBUS (a guard
//     page of a buffer, a NULL dereference, a stack overflow) and exit() /
//     quick_exit() record their status;
//   - the parent waits on the child itself (a pidfd), its "returned" byte,
//     the timeout and SIGINT/SIGTERM: a helper process holding a pipe open
//     cannot make a correct call time out;
//   - when the body has returned, a thread or a process it leaves running
//     fails the call (it could still change what is judged);
//   - then, whatever happened, every process of the call is SIGKILLed and
//     reaped, those that left its group included (core/isolation/process_tree.h);
//   - shared memory handed to one child is kept out of every other
//     (MADV_DONTFORK), and a child closes the descriptors ropecheck holds
//     for its other children: a child cannot write into another call's
//     buffers or answer for another call (core/isolation/child_watch.h).
#ifndef ROPECHECK_CORE_ISOLATION_CHILD_PROCESS_H_
#define ROPECHECK_CORE_ISOLATION_CHILD_PROCESS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ropecheck {

inline constexpr double kDefaultMemoryLimitGiB = 16;

// An address range a fault in the child is named by ("past the end of q_out").
struct GuardRange {
  std::uintptr_t begin = 0, end = 0;
  std::string name;
};

// Shared memory (MAP_SHARED, from map_for_child) a child is handed.
struct SharedRange {
  void* base = nullptr;
  std::size_t bytes = 0;
};

struct ChildOptions {
  double timeout_seconds = 10;
  double memory_limit_gib = kDefaultMemoryLimitGiB;  // 0: no limit
  bool check_leftovers = true;
  std::vector<GuardRange> guards;
  // The memory the body works on: this child inherits it, no other does.
  std::vector<SharedRange> share;
  // A child per call only: run in the child before the body (a decoy call
  // of the kernel, core/isolation/isolated_apply.cc); then what a call may leave for the
  // next in its process (signal handlers and mask, timers, pending
  // signals, the floating-point state) is reset, as between a worker's
  // calls, before the body runs.
  std::function<void()> decoy;
  // A worker only (core/isolation/worker.h): the range that holds this call's
  // buffers, made read-write before the guards are armed in it.
  std::uintptr_t arm_begin = 0, arm_end = 0;
  // Inputs read-only to the kernel during the call, [begin, end) page
  // aligned, empty when begin == end: the call's cos/sin cache (issue #49:
  // a kernel that writes into it and restores it before returning passed a
  // comparison after the call), and in a worker the caches its arena keeps
  // from earlier calls (core/isolation/isolated_call.cc). A write faults, named
  // "wrote into <read_only_names[i]>".
  static constexpr int kReadOnlyRanges = 3;
  std::uintptr_t read_only_begin[kReadOnlyRanges] = {}, read_only_end[kReadOnlyRanges] = {};
  std::string read_only_names[kReadOnlyRanges];
};

struct ChildRun {
  bool returned = false;  // the body returned in the child
  int status = 0;         // what it returned
  std::string message;    // what it wrote into its message buffer
  // Why the call failed beyond its status (a crash, exit(), the timeout, a
  // thread or process left running), or "interrupted by SIGINT"; empty when
  // the body returned and left nothing behind.
  std::string failure;
  bool interrupted = false;
};

// Runs body(message, size) in a child as above.
ChildRun run_in_child(const ChildOptions& o, const std::function<int(char* message, std::size_t size)>& body);

// Shared memory for a child (read-write, MAP_SHARED): inherited only by the
// children it is handed to in ChildOptions::share. lazy: MAP_NORESERVE (no
// memory is set aside for pages never touched). Throws std::bad_alloc.
void* map_for_child(std::size_t bytes, bool lazy = false);
void unmap_for_child(void* base, std::size_t bytes);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_CHILD_PROCESS_H_
