// SPDX-License-Identifier: MIT
// SIGINT and SIGTERM during a run. The first one is recorded, not fatal:
// the command stops at the next point it can (an isolated call at once: its
// wait watches interrupt_fd(); the gate after the property it is in), kills
// every process it started, writes its partial reports marked interrupted,
// and exits 128 + the signal (130, 143). A second signal ends the process at
// once with that status, as does the first one when an in-process kernel
// call (core/isolation/host_guard.h) does not return within two seconds of it.
#ifndef ROPECHECK_CORE_ISOLATION_INTERRUPT_H_
#define ROPECHECK_CORE_ISOLATION_INTERRUPT_H_

namespace ropecheck {

// The value a supervising parent sends with sigqueue() when it forwards a
// SIGINT or SIGTERM it received: the copy of a signal sent to the whole
// process group, which this process receives directly too, is not taken
// for a second signal.
inline constexpr int kForwardedSignalTag = 0x726f7065;  // "rope"

// Idempotent. Commands that run kernels call it before the first one.
void install_interrupt_handlers();
// The signal that arrived (SIGINT, SIGTERM), or 0.
int interrupt_signal();
// Readable once a signal arrived; -1 before install_interrupt_handlers().
int interrupt_fd();
// "SIGINT" / "SIGTERM" and 128 + the signal, for the report and the exit code.
const char* interrupt_name();
int interrupted_exit_code();

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_INTERRUPT_H_
