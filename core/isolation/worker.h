// SPDX-License-Identifier: MIT
// A persistent isolated worker: one child process that runs calls of
// untrusted code one after the other, with every guarantee of a child per
// call (core/isolation/child_process.h) and without a fork() per call.
//   - the worker is forked once, inherits only the shared memory it is
//     handed (its arena) and closes the descriptors of ropecheck's other
//     children; it is a process group of its own that dies with ropecheck;
//   - before every call it sets again what a call may have changed (signal
//     handlers and mask, the alternate stack, the allocation hook, the soft
//     memory limit: what it holds plus --memory-limit) and arms the guard
//     pages of this call's buffers (core/isolation/child_side.h);
//   - a call is a byte on a socket each way; the parent waits on it, on the
//     worker's death, the timeout and SIGINT/SIGTERM (core/isolation/child_watch.h);
//   - when the call returned, the worker answers and stops its process
//     group (SIGSTOP); the parent reads nothing before it sees the stop, so
//     nothing of the worker runs while the parent looks at what it left and
//     reads its buffers, nor until the next call continues it (SIGCONT);
//   - a call that fails in any way (a crash, exit(), the timeout, a thread
//     or process left running, an answer for another call), or that leaves
//     state that could act later (a timer armed, a signal pending), or after
//     which the worker holds more than --memory-limit on top of what it
//     started with, retires the worker: it and everything it started are
//     killed and reaped before the parent reads anything, and the next call
//     starts a new one. The caller retires it too after a call whose
//     buffers show damage (core/isolation/call_verdict.cc).
#ifndef ROPECHECK_CORE_ISOLATION_WORKER_H_
#define ROPECHECK_CORE_ISOLATION_WORKER_H_

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/isolation/child_process.h"
#include "core/isolation/child_watch.h"

namespace ropecheck {

class Worker {
 public:
  // share: the memory the worker works on (its arena, from map_for_child);
  // body: what each call runs in the worker (it finds the call's request in
  // `share`).
  Worker(std::vector<SharedRange> share, double memory_limit_gib,
         std::function<int(char* message, std::size_t size)> body);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // One call, the process started first when none is running (or when it
  // died while it waited: nothing of a call ran then). o.guards and
  // o.arm_begin/arm_end lay out this call's buffers; o.memory_limit_gib
  // only names the limit in a message (the worker's was fixed at start).
  ChildRun call(const ChildOptions& o);
  // Kills and reaps the process and everything it started.
  void retire();

  pid_t pid() const { return forked_.pid; }
  int starts() const { return starts_; }  // processes started so far

 private:
  void start();

  pid_t owner_;  // the process that made it: a forked copy never ends it
  std::vector<SharedRange> share_;
  double memory_limit_gib_;
  std::function<int(char*, std::size_t)> body_;
  ChildShared* control_ = nullptr;
  Forked forked_;  // the running process (pid -1: none)
  bool stopped_ = false;
  std::uint64_t seq_ = 0;
  int starts_ = 0;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_WORKER_H_
