// SPDX-License-Identifier: MIT
// Spans in which ropecheck runs code it does not trust inside its own
// process: an in-process kernel call (--no-isolation, or a kernel the
// registry keeps in process) and loading a plugin (its constructors and
// ropecheck_get_impls run at dlopen). If that code calls exit() or
// quick_exit(), or crashes, ropecheck ends with a message naming the span
// and a non-zero status: never status 0 with no verdict printed. (_exit()
// and the exit_group system call run no handler: isolation, and for the
// command the verdict supervisor, cli/verdict_supervisor.h, catch those;
// docs/RELIABILITY.md.)
#ifndef ROPECHECK_CORE_ISOLATION_HOST_GUARD_H_
#define ROPECHECK_CORE_ISOLATION_HOST_GUARD_H_

#include <string>

namespace ropecheck {

class HostGuard {
 public:
  // what: "the kernel scalar_x (apply, in this process)"; exit_code: the
  // status ropecheck ends with when the guarded code exits or crashes.
  HostGuard(std::string what, int exit_code);
  ~HostGuard();
  HostGuard(const HostGuard&) = delete;
  HostGuard& operator=(const HostGuard&) = delete;

 private:
  std::string what_;
  int slot_ = -1;      // this span's slot in the table the handlers read
  int previous_ = -1;  // the thread's enclosing span's slot
};

// The innermost active span's description, or nullptr (async-signal-safe).
const char* active_host_guard();
// Whether ropecheck's own SIGSEGV/SIGBUS handler is installed (it is not
// under a sanitizer, nor where another handler was there first): the one
// core/isolation/read_only_watch.h needs. Installs it on the first call.
bool host_fault_handler_installed();
// Whether it is still the SIGSEGV and SIGBUS handler now: a host may
// install its own later (Python's faulthandler.enable(), a JVM), and a
// write into a watched range would then reach that handler, not
// ropecheck's (two sigaction calls; asked per watch).
bool host_fault_handler_in_place();
// Called in a forked child: the parent's spans are not the child's.
void clear_host_guards_in_child();

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_HOST_GUARD_H_
