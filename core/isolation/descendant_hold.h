// SPDX-License-Identifier: MIT
// Keeps every process a kernel call starts inside that call's own process
// tree, so what the call leaves running is found under the call's process
// and named for that call, even while other calls run beside it on other
// threads (check --jobs): the call's process becomes a child subreaper
// (prctl(2), PR_SET_CHILD_SUBREAPER), so an orphan among its descendants
// (a daemon's fork, setsid and fork again) is reparented to it rather than
// to ropecheck, and a seccomp filter (libseccomp) keeps its code and its
// descendants from undoing that. Without the filter, an orphan could reach
// ropecheck while another call is being judged, and be blamed on that
// other, correct kernel. Internal to core/.
#ifndef ROPECHECK_CORE_ISOLATION_DESCENDANT_HOLD_H_
#define ROPECHECK_CORE_ISOLATION_DESCENDANT_HOLD_H_

#include <cstddef>

namespace ropecheck {

// In a child, before any kernel code runs. Refuses, for this process and
// everything it starts: clearing the subreaper attribute; clone() with
// CLONE_PARENT (a new process made the child of ropecheck itself); clone3(),
// whose flags a filter cannot read (ENOSYS: the C library then falls back to
// clone()); and a signal to anything outside the call (core/isolation/
// signal_fence.h). Sets no_new_privs, which seccomp requires of an unprivileged
// process. Returns true when the hold is in place; otherwise why not is
// written to why (NUL-terminated, at most why_size bytes).
bool hold_descendants(char* why, std::size_t why_size);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_DESCENDANT_HOLD_H_
