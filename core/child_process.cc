#include "core/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>

#include "core/child_side.h"
#include "core/interrupt.h"
#include "core/process_tree.h"

namespace ropecheck {
namespace {

// Calls under way (concurrent calls must not sweep each other's children).
std::mutex g_mu;
std::vector<pid_t> g_active;

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
  std::snprintf(b, sizeof b, "%g GiB", g);
  return b;
}

std::string memory_limit_text(const ChildOptions& o) {
  return "exceeded the memory limit (" + gib(o.memory_limit_gib) + ", --memory-limit)";
}

std::string describe_fault(int sig, const ChildShared& s, const ChildOptions& o) {
  const std::string at = " at " + hex(s.fault_addr);
  switch (static_cast<FaultKind>(s.fault_kind)) {
    case FaultKind::kGuard:
      return "an access outside its buffers (" + o.guards[static_cast<std::size_t>(s.fault_guard)].name + at + ")";
    case FaultKind::kNull:
      if (s.fault_errno == ENOMEM || s.allocation_refused)
        return memory_limit_text(o) + ": an allocation failed and the NULL it returned was dereferenced" + at;
      return "a NULL pointer dereference" + at;
    case FaultKind::kStack:
      return "a stack overflow" + at;
    case FaultKind::kOther:
      return "an access to memory it was not given" + at;
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
      why = s.allocation_refused ? memory_limit_text(o) + ": an allocation was refused and the kernel aborted"
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
  if (s.exit_called) return "called exit(" + n + ")";
  if (s.quick_exit_called) return "called quick_exit(" + n + ")";
  return "ended the process with status " + n + " without returning (_exit() or exit_group)";
}

// What the child left running once its body returned: threads, children,
// or processes that already left its tree and were reparented here.
std::string leftovers(pid_t child) {
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
  if (const auto kids = children_of(child, true); !kids.empty())
    return "left a child process (pid " + std::to_string(kids[0]) + ") running after it returned";
  std::vector<pid_t> strays = children_of(::getpid(), true);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    strays.erase(std::remove_if(strays.begin(), strays.end(),
                                [](pid_t p) { return std::find(g_active.begin(), g_active.end(), p) != g_active.end(); }),
                 strays.end());
  }
  if (!strays.empty())
    return "started a process (pid " + std::to_string(strays[0]) + ") that left its process group and was still running";
  return {};
}

enum class End { kReturned, kDied, kTimedOut, kInterrupted };

// Waits for the first of: the child's "returned" byte, its death, the
// timeout, an interrupt. On kDied, *info holds its status, still unreaped
// (WNOWAIT: its pid cannot be reused before the sweep).
End wait_for_child(pid_t pid, int done_fd, double timeout_seconds, siginfo_t* info) {
  const int pidfd = open_pidfd(pid);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  bool done_open = true;
  End end = End::kTimedOut;
  for (;;) {
    pollfd fds[3];
    int n = 0, pid_i = -1, done_i = -1;
    if (done_open) fds[done_i = n++] = {done_fd, POLLIN, 0};
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
    if (done_i >= 0 && fds[done_i].revents) {
      char c;
      const ssize_t k = ::read(done_fd, &c, 1);
      if (k == 1) {
        end = End::kReturned;
        break;
      }
      if (k == 0) done_open = false;  // no writer left: only the child's death can still be seen
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
  if (pidfd >= 0) ::close(pidfd);
  return end;
}

}  // namespace

ChildRun run_in_child(const ChildOptions& o, const std::function<int(char*, std::size_t)>& body) {
  become_subreaper();
  void* mem = ::mmap(nullptr, sizeof(ChildShared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) throw std::bad_alloc();
  auto* shared = new (mem) ChildShared{};
  int done[2];
  if (::pipe2(done, O_CLOEXEC) != 0) {
    ::munmap(mem, sizeof(ChildShared));
    throw std::runtime_error("isolation: pipe() failed");
  }
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  pid_t pid;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    pid = ::fork();
    if (pid == 0) {
      ::close(done[0]);
      prepare_child(shared, o, parent);
      shared->status = body(shared->message, sizeof shared->message);
      shared->message[sizeof shared->message - 1] = '\0';
      shared->returned = 1;
      [[maybe_unused]] const ssize_t w = ::write(done[1], "r", 1);
      for (;;) ::pause();  // the parent looks at what is left, then kills it
    }
    if (pid > 0) g_active.push_back(pid);
  }
  ::close(done[1]);
  if (pid < 0) {
    ::close(done[0]);
    ::munmap(mem, sizeof(ChildShared));
    throw std::runtime_error(std::string("isolation: fork() failed: ") + std::strerror(errno));
  }
  ::setpgid(pid, pid);  // the child does it too: whichever runs first
  siginfo_t info{};
  const End end = wait_for_child(pid, done[0], o.timeout_seconds, &info);
  ::close(done[0]);
  ChildRun run;
  if (end == End::kReturned && o.check_leftovers) run.failure = leftovers(pid);
  std::vector<pid_t> keep;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_active.erase(std::remove(g_active.begin(), g_active.end(), pid), g_active.end());
    keep = g_active;
  }
  kill_and_reap(pid, keep);  // everything the call started is dead from here on
  run.returned = end == End::kReturned;
  run.status = shared->status;
  run.message = shared->message;
  switch (end) {
    case End::kReturned: break;
    case End::kDied:
      run.failure = info.si_code == CLD_EXITED ? describe_exit(info.si_status, *shared)
                                               : describe_signal(info.si_status, *shared, o);
      break;
    case End::kTimedOut: {
      char b[128];
      std::snprintf(b, sizeof b, "timed out after %.3g s (hang?); every process of the call was killed", o.timeout_seconds);
      run.failure = b;
      break;
    }
    case End::kInterrupted:
      run.interrupted = true;
      run.failure = std::string("interrupted by ") + interrupt_name();
      break;
  }
  shared->~ChildShared();
  ::munmap(mem, sizeof(ChildShared));
  return run;
}

}  // namespace ropecheck
