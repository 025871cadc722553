// SPDX-License-Identifier: MIT
// Keeps a kernel call's processes from signalling anything outside the
// call (issue #49: a process a kernel left sent SIGSTOP to every ancestor
// named ropecheck, and the run hung past every limit; with SIGKILL it ended
// with no verdict for any kernel). A seccomp filter (raw BPF, stacked on
// descendant_hold's) in a worker or a child per call, inherited by
// everything it starts and impossible to remove, lets a signal through only
// to the call's own process group (kill(0, ...) or kill(-pgid, ...)), to the
// call's own process (kill(pid, ...), tgkill(pid, ...)), or from a process
// to itself (tgkill with the thread group's leader, raise() in its main
// thread); kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo and
// pidfd_send_signal to anything else fail with EPERM. A kernel that signals
// a process it forked by its pid is refused too (docs/RELIABILITY.md): a
// call's processes are the call's business only through its group.
// Internal to core/.
#ifndef ROPECHECK_CORE_ISOLATION_SIGNAL_FENCE_H_
#define ROPECHECK_CORE_ISOLATION_SIGNAL_FENCE_H_

#include <sys/types.h>

#include <cstddef>

namespace ropecheck {

// In a child, after it became the leader of its own process group (pid ==
// pgid), before any kernel code runs; needs no_new_privs (set by
// descendant_hold's filter). False, with why, when the architecture has no
// filter here or the kernel refused it.
bool fence_signals(pid_t self, char* why, std::size_t why_size);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_SIGNAL_FENCE_H_
