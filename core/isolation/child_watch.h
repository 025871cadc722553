// SPDX-License-Identifier: MIT
// The parent's half of running untrusted code in a child, shared by a child
// per call (core/isolation/child_process.h) and a persistent worker (core/isolation/worker.h):
// forking with only the child's own shared memory, the register of
// ropecheck's own children (never taken for strays), waiting for a child,
// naming how it ended, what it left running, and the sweep. Internal to
// core/.
#ifndef ROPECHECK_CORE_ISOLATION_CHILD_WATCH_H_
#define ROPECHECK_CORE_ISOLATION_CHILD_WATCH_H_

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/isolation/child_process.h"
#include "core/isolation/child_side.h"
#include "core/isolation/process_tree.h"

namespace ropecheck {

struct Forked {
  pid_t pid = -1;
  int fd = -1;  // this process's end of a socket pair with the child
  // Held for the child's life, so that a call's wait and its look for
  // what it left open nothing (-1 where the system has none).
  int pidfd = -1;
  ProcFiles proc;
};

// Under one lock: a socket pair, fork(), the child registered. `share` is
// inherited by this child and by no other (MADV_DOFORK for this fork only).
// In the child: the descriptors ropecheck holds for its other children are
// closed, then child_main(its end of the socket) runs; the child _exits if
// it returns. Throws std::runtime_error when fork() fails.
Forked fork_child(const std::vector<SharedRange>& share, const std::function<void(int fd)>& child_main);
// The child is dead and reaped: out of the register, its socket closed.
void forget_child(Forked& f);

enum class End { kReturned, kDied, kTimedOut, kInterrupted };

// Waits for the first of: a byte from the child on fd, its death, the
// timeout, an interrupt (SIGINT / SIGTERM). On kDied, *info holds its
// status, still unreaped (WNOWAIT: its pid cannot be reused before the
// sweep).
End wait_for_child(const Forked& f, double timeout_seconds, siginfo_t* info);
// After the child answered: waits until its process group is stopped (it
// stops itself right after answering, in both modes), so that nothing of
// the call runs while this process counts what it left and reads its
// outputs: a thread that would finish its writes a millisecond after the
// answer is frozen, still counted, and its writes never land. kReturned
// once stopped (the stop consumed); kDied (*info: how, unreaped),
// kTimedOut or kInterrupted otherwise.
End wait_until_stopped(pid_t pid, std::chrono::steady_clock::time_point deadline, siginfo_t* info);
// Why a call failed when it did not return: its death (from *info and what
// the child recorded), the timeout, the interrupt. Sets *interrupted.
std::string describe_end(End end, const siginfo_t& info, const ChildShared& s, const ChildOptions& o,
                         bool* interrupted);
// What the child left running once its body returned: threads, children,
// processes that left its process group (reparented to the child, which
// holds its descendants), or, where the hold could not be set up (s says
// why), processes reparented to ropecheck itself. Empty if none.
std::string leftovers(const Forked& child, const ChildShared& s);
// What the body left changed in its process that its caller's arithmetic
// would run in (the floating-point control state); empty if nothing.
std::string state_left_failure(const ChildShared& s);
// SIGKILLs and reaps the child's process group and every stray (a child of
// this process not in the register).
void sweep(pid_t pgid);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_CHILD_WATCH_H_
