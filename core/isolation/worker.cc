// SPDX-License-Identifier: MIT
// A persistent isolated worker: one child process running calls one after the other.
#include "core/isolation/worker.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "core/isolation/child_side.h"
#include "core/isolation/child_watch.h"
#include "core/isolation/interrupt.h"

namespace ropecheck {

Worker::Worker(std::vector<SharedRange> share, double memory_limit_gib, std::function<int(char*, std::size_t)> body)
    : owner_(::getpid()), share_(std::move(share)), memory_limit_gib_(memory_limit_gib), body_(std::move(body)) {
  control_ = new (map_for_child(sizeof(ChildShared))) ChildShared{};
}

Worker::~Worker() {
  // exit() in a child (a kernel's, in this or another worker) runs the
  // thread_local destructors it inherited: they must not end this
  // process's workers from there.
  if (::getpid() != owner_) return;
  retire();
  control_->~ChildShared();
  unmap_for_child(control_, sizeof(ChildShared));
}

void Worker::start() {
  *control_ = ChildShared{};
  std::vector<SharedRange> share = share_;
  share.push_back({control_, sizeof(ChildShared)});
  const pid_t parent = ::getpid();
  ChildShared* const control = control_;
  const double limit = memory_limit_gib_;
  const std::function<int(char*, std::size_t)>* const body = &body_;
  const Forked f = fork_child(share, [control, parent, limit, body](int fd) {
    prepare_child(control, parent, limit, /*worker=*/true);
    serve_calls(control, fd, limit, *body);
  });
  forked_ = f;
  stopped_ = false;
  ++starts_;
}

void Worker::retire() {
  if (forked_.pid <= 0 || ::getpid() != owner_) return;
  sweep(forked_.pid);  // SIGKILL ends a stopped process too
  forget_child(forked_);
  stopped_ = false;
}

ChildRun Worker::call(const ChildOptions& o) {
  if (forked_.pid > 0) {  // died while it waited, stopped (the out-of-memory killer, a kill from outside)?
    siginfo_t si{};
    if (::waitid(P_PID, static_cast<id_t>(forked_.pid), &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        si.si_pid == forked_.pid)
      retire();
  }
  if (forked_.pid <= 0) start();
  ChildShared& s = *control_;
  const std::uint64_t seq = ++seq_;
  s.returned = 0;
  s.status = 0;
  s.exit_called = s.exit_status = s.quick_exit_called = s.quick_exit_status = 0;
  s.allocation_refused = 0;
  s.fault_kind = static_cast<int>(FaultKind::kNone);
  s.fault_guard = -1;
  s.fault_errno = 0;
  s.fault_addr = 0;
  s.arm_errno = 0;
  s.state_left = 0;
  s.lost_channel = 0;
  s.message[0] = '\0';
  set_guard_table(&s, o);
  s.arm_begin = o.arm_begin;
  s.arm_end = o.arm_end;
  for (int i = 0; i < ChildOptions::kReadOnlyRanges; ++i) {
    s.read_only_begin[i] = o.read_only_begin[i];
    s.read_only_end[i] = o.read_only_end[i];
  }
  s.seq = seq;
  s.done_seq = 0;
  // The request before the SIGCONT: the worker, continued, finds it waiting
  // and runs the call at once instead of sleeping in recv() for it (a
  // sleep and a wake-up fewer per call). If it is gone, the wait sees its death.
  [[maybe_unused]] const ssize_t sent = ::send(forked_.fd, "c", 1, MSG_NOSIGNAL);
  if (stopped_) {
    ::kill(forked_.pid, SIGCONT);  // the worker alone: anything else it left retired it
    stopped_ = false;
  }
  siginfo_t info{};
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(o.timeout_seconds));
  End end = wait_for_child(forked_, o.timeout_seconds, &info);
  if (end == End::kReturned) {
    end = wait_until_stopped(forked_.pid, deadline, &info);
    stopped_ = end == End::kReturned;
  }
  ChildRun run;
  if (end == End::kReturned) {
    if (s.done_seq != seq)
      run.failure = "answered for another call (something wrote to its worker's socket)";
    else if (s.arm_errno != 0)
      run.failure = std::string("not run: its worker could not arm the guard pages of its buffers (mprotect: ") +
                    std::strerror(s.arm_errno) + ")";
    else if (o.check_leftovers)
      run.failure = leftovers(forked_, s);
    if (run.failure.empty()) run.failure = state_left_failure(s);
  }
  run.returned = end == End::kReturned && s.returned == 1;
  run.status = s.status;
  run.message.assign(s.message, ::strnlen(s.message, sizeof s.message));
  if (end != End::kReturned) run.failure = describe_end(end, info, s, o, &run.interrupted);
  const bool grew = memory_limit_gib_ > 0 &&
                    s.vm_after > s.vm_base + static_cast<std::uint64_t>(memory_limit_gib_ * 1073741824.0);
  if (end != End::kReturned || !run.failure.empty() || s.state_left != 0 || grew) retire();
  return run;
}

}  // namespace ropecheck
