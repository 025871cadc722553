// SPDX-License-Identifier: MIT
// The parent's half of running untrusted code in a child: forking, waiting, naming the end.
#include "core/isolation/child_watch.h"

#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "core/isolation/fp_env.h"
#include "core/isolation/interrupt.h"
#include "core/isolation/process_tree.h"

namespace ropecheck {
namespace {

// ropecheck's own children (calls under way, live workers) and this
// process's end of each one's socket. Forks happen under the lock, so a
// child's copy of the register is whole.
std::mutex g_mu;
std::vector<pid_t> g_pids;
std::vector<int> g_fds;

bool registered(pid_t p) {
  std::lock_guard<std::mutex> lock(g_mu);
  return std::find(g_pids.begin(), g_pids.end(), p) != g_pids.end();
}

int open_pidfd(pid_t pid) {
#if defined(SYS_pidfd_open)
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

std::string hex(std::uintptr_t a) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(a));
  return b;
}

std::string gib(double g) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g GiB", g);
  return b;
}

// The limit a failed allocation met: --memory-limit on top of what the
// process held, or, when lower, the address-space limit ropecheck itself
// was started with (`ulimit -v`), which no child can raise.
std::string memory_limit_text(const ChildOptions& o, const ChildShared& s) {
  const double held = static_cast<double>(s.vm_base) / 1073741824.0;
  if (s.inherited_as > 0 && (o.memory_limit_gib <= 0 || static_cast<double>(s.inherited_as) / 1073741824.0 <
                                                           held + o.memory_limit_gib))
    return "exceeded the address-space limit ropecheck was started with (ulimit -v: " +
           gib(static_cast<double>(s.inherited_as) / 1073741824.0) + " of address space, the process holding " +
           gib(held) + " before the call; lower than --memory-limit " + gib(o.memory_limit_gib) + " would allow)";
  return "exceeded the memory limit (" + gib(o.memory_limit_gib) + ", --memory-limit)";
}

std::string describe_fault(int sig, const ChildShared& s, const ChildOptions& o) {
  const std::string at = " at " + hex(s.fault_addr);
  switch (static_cast<FaultKind>(s.fault_kind)) {
    case FaultKind::kGuard:
      if (s.fault_guard >= 0 && static_cast<std::size_t>(s.fault_guard) < o.guards.size())
        return "an access outside its buffers (" + o.guards[static_cast<std::size_t>(s.fault_guard)].name + at + ")";
      return "an access outside its buffers" + at;
    case FaultKind::kNull:
      if (s.fault_errno == ENOMEM || s.allocation_refused)
        return memory_limit_text(o, s) + ": an allocation failed and the NULL it returned was dereferenced" + at;
      return "a NULL pointer dereference" + at;
    case FaultKind::kStack:
      return "a stack overflow" + at;
    case FaultKind::kOther:
      return "an access to memory it was not given" + at;
    case FaultKind::kReadOnlyInput:
      if (s.fault_guard >= 0 && s.fault_guard < ChildOptions::kReadOnlyRanges)
        return "wrote into " + o.read_only_names[s.fault_guard] + at;
      return "a write into a read-only input" + at;
    case FaultKind::kNone:
      break;
  }
  return sig == SIGSEGV ? "SIGSEGV" : "SIGBUS";
}

std::string describe_signal(int sig, const ChildShared& s, const ChildOptions& o) {
  std::string why;
  switch (sig) {
    case SIGSEGV:
    case SIGBUS: why = describe_fault(sig, s, o); break;
    case SIGABRT:
      why = s.allocation_refused ? memory_limit_text(o, s) + ": an allocation was refused and the kernel aborted"
                                 : "SIGABRT: the kernel aborted";
      break;
    case SIGFPE: why = "SIGFPE: an arithmetic trap"; break;
    case SIGILL: why = "SIGILL: an illegal instruction"; break;
    case SIGKILL: why = "SIGKILL from outside: another process, or the system's out-of-memory killer"; break;
    default: why = strsignal(sig); break;
  }
  return "crashed with signal " + std::to_string(sig) + " (" + why + ")";
}

std::string describe_exit(int code, const ChildShared& s) {
  const std::string n = std::to_string(code);
  if (s.lost_channel)
    return "closed or replaced a descriptor it did not open (the socket its process answers ropecheck on), so its "
           "return could not be reported";
  if (s.exit_called) return "called exit(" + n + ")";
  if (s.quick_exit_called) return "called quick_exit(" + n + ")";
  return "ended the process with status " + n + " without returning (_exit() or exit_group)";
}

}  // namespace

void* map_for_child(std::size_t bytes, bool lazy) {
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | (lazy ? MAP_NORESERVE : 0), -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  if (::madvise(m, bytes, MADV_DONTFORK) != 0) {
    ::munmap(m, bytes);
    throw std::bad_alloc();
  }
  return m;
}

void unmap_for_child(void* base, std::size_t bytes) { ::munmap(base, bytes); }

Forked fork_child(const std::vector<SharedRange>& share, const std::function<void(int)>& child_main) {
  become_subreaper();
  std::fflush(nullptr);
  Forked f;
  int sv[2];
  int fork_errno = 0;
  {
    // Calls from several threads (check --jobs): the socket is made, the
    // child forked and the parent's copy of the child's end closed under one
    // lock, so no other child inherits this one's end.
    std::lock_guard<std::mutex> lock(g_mu);
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      throw std::runtime_error(std::string("isolation: socketpair() failed: ") + std::strerror(errno));
    for (const SharedRange& r : share) ::madvise(r.base, r.bytes, MADV_DOFORK);
    f.pid = ::fork();
    if (f.pid == 0) {
      ::close(sv[0]);
      for (int fd : g_fds) ::close(fd);
      child_main(sv[1]);
      ::_exit(0);
    }
    fork_errno = errno;
    for (const SharedRange& r : share) ::madvise(r.base, r.bytes, MADV_DONTFORK);
    ::close(sv[1]);
    if (f.pid > 0) {
      f.fd = sv[0];
      g_pids.push_back(f.pid);
      g_fds.push_back(f.fd);
      // Opened under the lock too, and closed in every later child.
      f.pidfd = open_pidfd(f.pid);
      f.proc = open_proc_files(f.pid);
      for (int fd : {f.pidfd, f.proc.stat, f.proc.children})
        if (fd >= 0) g_fds.push_back(fd);
    }
  }
  if (f.pid < 0) {
    ::close(sv[0]);
    throw std::runtime_error(std::string("isolation: fork() failed: ") + std::strerror(fork_errno));
  }
  ::setpgid(f.pid, f.pid);  // the child does it too: whichever runs first
  return f;
}

void forget_child(Forked& f) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_pids.erase(std::remove(g_pids.begin(), g_pids.end(), f.pid), g_pids.end());
    for (int fd : {f.fd, f.pidfd, f.proc.stat, f.proc.children})
      if (fd >= 0) g_fds.erase(std::remove(g_fds.begin(), g_fds.end(), fd), g_fds.end());
  }
  if (f.fd >= 0) ::close(f.fd);
  if (f.pidfd >= 0) ::close(f.pidfd);
  close_proc_files(f.proc);
  f = Forked{};
}

End wait_for_child(const Forked& f, double timeout_seconds, siginfo_t* info) {
  const pid_t pid = f.pid;
  const int fd = f.fd, pidfd = f.pidfd;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  bool fd_open = true;
  End end = End::kTimedOut;
  for (;;) {
    pollfd fds[3];
    int n = 0, pid_i = -1, fd_i = -1;
    if (fd_open) fds[fd_i = n++] = {fd, POLLIN, 0};
    if (pidfd >= 0) fds[pid_i = n++] = {pidfd, POLLIN, 0};
    if (interrupt_fd() >= 0) fds[n++] = {interrupt_fd(), POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    // Without a pidfd (Linux < 5.3), look at the child every 10 ms.
    const int r = ::poll(fds, static_cast<nfds_t>(n), static_cast<int>(pidfd >= 0 ? left.count() : std::min<long long>(left.count(), 10)));
    if (interrupt_signal()) {
      end = End::kInterrupted;
      break;
    }
    if (r < 0) continue;
    if (fd_i >= 0 && fds[fd_i].revents) {
      char c;
      const ssize_t k = ::read(fd, &c, 1);
      if (k == 1) {
        end = End::kReturned;
        break;
      }
      if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN)) fd_open = false;  // only the child's death can still be seen
    }
    if (pidfd < 0 || (pid_i >= 0 && fds[pid_i].revents)) {
      *info = {};
      if (::waitid(P_PID, static_cast<id_t>(pid), info, WEXITED | WNOWAIT | (pidfd < 0 ? WNOHANG : 0)) == 0 &&
          info->si_pid == pid) {
        end = End::kDied;
        break;
      }
    }
  }
  return end;
}

End wait_until_stopped(pid_t pid, std::chrono::steady_clock::time_point deadline, siginfo_t* info) {
  for (int round = 0;; ++round) {
    siginfo_t si{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &si, WSTOPPED | WEXITED | WNOHANG | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      return End::kDied;  // not our child any more
    }
    if (si.si_pid == pid && si.si_code == CLD_STOPPED) {
      siginfo_t consumed{};
      ::waitid(P_PID, static_cast<id_t>(pid), &consumed, WSTOPPED);  // so no later wait sees this stop
      return End::kReturned;
    }
    if (si.si_pid == pid) {
      *info = si;
      return End::kDied;
    }
    if (interrupt_signal()) return End::kInterrupted;
    if (std::chrono::steady_clock::now() > deadline) return End::kTimedOut;
    // It stops right after it answers: yield first, then sleep a little.
    if (round < 8) {
      sched_yield();
    } else {
      pollfd p{interrupt_fd(), POLLIN, 0};
      ::poll(&p, interrupt_fd() >= 0 ? 1 : 0, 1);
    }
  }
}

std::string describe_end(End end, const siginfo_t& info, const ChildShared& s, const ChildOptions& o,
                         bool* interrupted) {
  *interrupted = false;
  switch (end) {
    case End::kReturned: return {};
    case End::kDied:
      return info.si_code == CLD_EXITED ? describe_exit(info.si_status, s) : describe_signal(info.si_status, s, o);
    case End::kTimedOut: {
      char b[128];
      std::snprintf(b, sizeof b, "timed out after %.3g s (hang?); every process of the call was killed", o.timeout_seconds);
      return b;
    }
    case End::kInterrupted:
      *interrupted = true;
      return std::string("interrupted by ") + interrupt_name();
  }
  return {};
}

std::string leftovers(const Forked& f, const ChildShared& s) {
  const pid_t child = f.pid;
  if (s.descendants_held && alone_without_children(child, &f.proc)) return {};
  int threads = live_threads(child);
  // A thread that was just joined may take a moment to leave /proc.
  for (int i = 0; i < 50 && threads > 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    threads = live_threads(child);
  }
  if (threads > 1)
    return "left " + std::to_string(threads - 1) +
           " thread(s) running after it returned (work not finished when apply returns could still change "
           "what is judged; join every thread before returning)";
  // The child leads its own process group; an orphan of its tree that left
  // that group (setsid) was reparented to the child, which holds its
  // descendants (core/isolation/descendant_hold.h).
  for (pid_t kid : children_of(child, true)) {
    if (::getpgid(kid) != child)
      return "started a process (pid " + std::to_string(kid) + ") that left its process group and was still running";
    return "left a child process (pid " + std::to_string(kid) + ") running after it returned";
  }
  if (s.descendants_held) return {};  // nothing of this call can be among ropecheck's own children
  // Without the hold, an orphan reaches ropecheck itself. It is this call's
  // only if no other call ran meanwhile, which this process cannot tell.
  std::vector<pid_t> strays = children_of(::getpid(), false);
  strays.erase(std::remove_if(strays.begin(), strays.end(), [](pid_t c) { return registered(c) || !process_alive(c); }),
               strays.end());
  if (!strays.empty())
    return "started a process (pid " + std::to_string(strays[0]) +
           ") that left its process group and was still running (or a call beside it did: calls cannot hold their "
           "descendants here, " +
           std::string(s.hold_failure, ::strnlen(s.hold_failure, sizeof s.hold_failure)) +
           "; with --jobs 1 the blame is exact)";
  return {};
}

std::string state_left_failure(const ChildShared& s) {
  if (s.fp_left[0] == '\0') return {};
  return fp_left_failure(std::string(s.fp_left, ::strnlen(s.fp_left, sizeof s.fp_left)));
}

void sweep(pid_t pgid) { kill_and_reap(pgid, registered); }

}  // namespace ropecheck
