// SPDX-License-Identifier: MIT
// What a process left behind, read from /proc, and the sweep that kills it:
// how ropecheck proves that everything a kernel call started is dead before
// the call's outputs are read, and before its memory is handed to another
// call. This process is made a child subreaper (prctl(2),
// PR_SET_CHILD_SUBREAPER), so a process that leaves its call's process group
// (setsid) or whose parent exits is reparented here, not to init, and the
// sweep still finds it.
#ifndef ROPECHECK_CORE_ISOLATION_PROCESS_TREE_H_
#define ROPECHECK_CORE_ISOLATION_PROCESS_TREE_H_

#include <sys/types.h>

#include <functional>
#include <vector>

namespace ropecheck {

// Idempotent.
void become_subreaper();
// Threads of pid still running (a thread that is exiting is not counted).
int live_threads(pid_t pid);
// Threads of this process, the calling one aside, that can still run user
// code: neither dead nor exiting. A thread is exiting once the kernel set
// PF_EXITING in its flags (/proc/self/task/<tid>/stat, field 9), which
// do_exit() does before the thread's exit wakes a joiner: a thread already
// joined is never counted, with no race, while one that was only detached
// is, for as long as it works (core/isolation/call_timing.h).
int other_working_threads();
// Children of every thread of pid; zombies left out when live_only.
std::vector<pid_t> children_of(pid_t pid, bool live_only);
// True when pid has one thread and that thread no child, read from two
// files without a directory scan: what every worker call is asked after it
// returned (core/isolation/child_watch.cc, leftovers), where the scans of
// live_threads and children_of took 3% of a quick gate. A thread counts in
// /proc/<pid>/stat's num_threads until it is released, so one means no
// other thread, live or exiting; and a process of one thread has every
// child of its exited threads (they are reparented to a live thread of the
// group). False when anything is unclear: the full scans then decide.
// With `files` (open_proc_files of pid) the two files are read again where
// they are open instead of opened and closed on every call.
struct ProcFiles {
  int stat = -1, children = -1;
};
ProcFiles open_proc_files(pid_t pid);
void close_proc_files(ProcFiles& f);
bool alone_without_children(pid_t pid, const ProcFiles* files = nullptr);
// Whether pid is a process that runs (not a zombie, not gone).
bool process_alive(pid_t pid);
// SIGKILLs and reaps what a call left: its process group pgid (its leader
// included) and every child of this process for which keep(pid) is false
// (keep: the other calls under way and the live workers, asked when each
// child is found, so a child forked meanwhile is never taken for a stray),
// round after round until none is left. Returns how many processes outside
// the group it found.
int kill_and_reap(pid_t pgid, const std::function<bool(pid_t)>& keep);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_PROCESS_TREE_H_
