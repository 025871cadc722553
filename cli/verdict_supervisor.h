// SPDX-License-Identifier: MIT
// "Exit status 0 means every case was judged and passed" in every mode.
// Code ropecheck does not trust can run inside its own process (a kernel
// under --no-isolation or kept in process, such as a CUDA kernel; a
// plugin's constructors at load). Such code can end the process with
// _exit(0) or the exit_group system call, which no handler sees, or close
// or replace standard output so the report goes nowhere: either would give
// status 0 with no verdict. So the command runs in a child of a small
// supervising process, and the supervisor ends with the child's status
// only when the child reported that status itself, after its report was
// written to the standard output it started with. Otherwise it names what
// happened on standard error and ends with 1 (or 128 + the signal that
// ended the child). SIGINT, SIGTERM and SIGHUP sent to the supervisor alone
// are forwarded (core/isolation/interrupt.h tells a forwarded copy from a second
// signal); the child dies with the supervisor (PR_SET_PDEATHSIG).
// ROPECHECK_SUPERVISOR=off runs the command in this process (for a
// debugger); the guarantee then does not hold against _exit().
#ifndef ROPECHECK_CLI_VERDICT_SUPERVISOR_H_
#define ROPECHECK_CLI_VERDICT_SUPERVISOR_H_

#include <functional>

namespace ropecheck::cli {

// Runs `command` (returning the exit status) as above; returns the status
// this process must end with.
int run_supervised(const std::function<int()>& command);

}  // namespace ropecheck::cli

#endif  // ROPECHECK_CLI_VERDICT_SUPERVISOR_H_
