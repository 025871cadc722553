// SPDX-License-Identifier: MIT
// The child's half of running untrusted code: its preparation after fork() and its re-arming per call.
#include "core/isolation/child_side.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "core/isolation/arena_protections.h"
#include "core/isolation/descendant_hold.h"
#include "core/isolation/fp_env.h"
#include "core/isolation/host_guard.h"

namespace ropecheck {
namespace {

ChildShared* g_shared = nullptr;
stack_t g_alt_stack{};
std::uint64_t g_hard_limit = 0;  // RLIMIT_AS set once after fork (0: none)
std::uint64_t g_vm_after = 0;    // a worker's address space after its last call

std::uintptr_t stack_pointer(void* ctx) {
  const auto* uc = static_cast<const ucontext_t*>(ctx);
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(uc->uc_mcontext.sp);
#else
  (void)uc;
  return 0;
#endif
}

// Names the first SIGSEGV/SIGBUS; SA_RESETHAND restored the default
// action, so returning re-runs the access and the signal ends the process.
void on_child_fault(int sig, siginfo_t* si, void* ctx) {
  const int saved_errno = errno;
  ChildShared* s = g_shared;
  if (s && s->fault_kind == static_cast<int>(FaultKind::kNone)) {
    const auto a = reinterpret_cast<std::uintptr_t>(si->si_addr);
    const std::uintptr_t sp = stack_pointer(ctx);
    FaultKind kind = FaultKind::kOther;
    const int n = s->guards < kMaxGuards ? s->guards : kMaxGuards;
    for (int i = 0; i < n; ++i)
      if (a >= s->guard_begin[i] && a < s->guard_end[i]) {
        kind = FaultKind::kGuard;
        s->fault_guard = i;
      }
    // The lowest 64 KiB are never mapped (vm.mmap_min_addr): a NULL
    // pointer plus an offset. A fault within 64 KiB of the stack pointer
    // is the stack's guard page: a stack overflow.
    for (int i = 0; i < ChildOptions::kReadOnlyRanges; ++i)
      if (kind == FaultKind::kOther && a >= s->read_only_begin[i] && a < s->read_only_end[i]) {
        kind = FaultKind::kReadOnlyInput;
        s->fault_guard = i;
      }
    if (kind == FaultKind::kOther && a < 65536) kind = FaultKind::kNull;
    if (kind == FaultKind::kOther && sp && a + 65536 > sp && a < sp + 65536) kind = FaultKind::kStack;
    s->fault_addr = a;
    s->fault_errno = saved_errno;
    s->fault_kind = static_cast<int>(kind);
  }
  if (si->si_code <= 0) ::raise(sig);  // sent by kill(): nothing to re-run
}

void on_exit_hook(int status, void*) {
  g_shared->exit_called = 1;
  g_shared->exit_status = status;
  ::_exit(status);  // the parent's atexit work (destructors, thread joins) is not the child's to run
}

void on_quick_exit_hook() { g_shared->quick_exit_called = 1; }

void on_allocation_failure() {
  g_shared->allocation_refused = 1;
  std::set_new_handler(nullptr);  // operator new now throws std::bad_alloc, which the kernel may handle
}

// A /proc/self file a worker reads after every call, kept open: a read
// from its start instead of an open (a walk through procfs) and a close per
// call. Opened again in another process than the one that opened it, and
// when a call closed it or put another file in its place (its device and
// inode are checked; a descriptor that is no longer this one is left alone,
// it may be the kernel's now).
class KeptProcFile {
 public:
  explicit KeptProcFile(const char* path) : path_(path) {}
  // Up to n bytes from its start; -1 when it cannot be read.
  ssize_t read(char* b, std::size_t n) {
    struct stat now {};
    if (fd_ < 0 || pid_ != ::getpid() || ::fstat(fd_, &now) != 0 || now.st_dev != dev_ || now.st_ino != ino_) {
      fd_ = ::open(path_, O_RDONLY | O_CLOEXEC);
      if (fd_ < 0 || ::fstat(fd_, &now) != 0) return -1;
      pid_ = ::getpid();
      dev_ = now.st_dev;
      ino_ = now.st_ino;
    }
    return ::pread(fd_, b, n, 0);
  }

 private:
  const char* path_;
  int fd_ = -1;
  pid_t pid_ = 0;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};
KeptProcFile g_statm("/proc/self/statm");
KeptProcFile g_timers("/proc/self/timers");

// Bytes of address space this process has (the first field of
// /proc/self/statm, in pages: what RLIMIT_AS is compared with). Read
// without malloc: a worker reads it after every call.
std::uint64_t address_space_bytes() {
  char b[64] = {0};
  const ssize_t n = g_statm.read(b, sizeof b - 1);
  std::uint64_t pages = 0;
  for (ssize_t i = 0; i < n && b[i] >= '0' && b[i] <= '9'; ++i) pages = pages * 10 + static_cast<std::uint64_t>(b[i] - '0');
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::uint64_t gib_bytes(double gib) { return static_cast<std::uint64_t>(gib * 1073741824.0); }

// After a worker's call: state of the process that could act during a later
// call (a timer that fires, a signal waiting for its mask to open). A child
// per call takes it with it when it is killed; a worker that holds any is
// replaced (core/isolation/worker.h), so the later call starts clean all the same.
int lingering_state() {
  int left = 0;
  for (int which : {ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF}) {
    itimerval v{};
    if (::getitimer(which, &v) == 0 && (v.it_value.tv_sec != 0 || v.it_value.tv_usec != 0)) left |= 1;
  }
  // timer_create(2) timers are listed here (CONFIG_CHECKPOINT_RESTORE).
  if (char c; g_timers.read(&c, 1) == 1) left |= 1;
  sigset_t pending;
  sigemptyset(&pending);
  if (::sigpending(&pending) == 0)
    for (int sig = 1; sig < NSIG; ++sig)
      if (sigismember(&pending, sig) == 1) left |= 2;
  return left;
}

}  // namespace

void set_guard_table(ChildShared* shared, const ChildOptions& o) {
  int n = 0;
  for (const GuardRange& g : o.guards) {
    if (n == kMaxGuards) break;
    shared->guard_begin[n] = g.begin;
    shared->guard_end[n++] = g.end;
  }
  shared->guards = n;
}

void prepare_child(ChildShared* shared, pid_t parent, double memory_limit_gib, bool worker) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent is already gone
  shared->hold_failure[0] = '\0';
  shared->descendants_held = hold_descendants(shared->hold_failure, sizeof shared->hold_failure) ? 1 : 0;
  clear_host_guards_in_child();
  // What the kernel prints to standard output goes to ropecheck's standard
  // error: never into the report on standard output (a kernel's debug line
  // in the middle of a markdown table), never lost (flushed after every
  // call, flush_kernel_output).
  ::dup2(2, 1);
  g_shared = shared;
  constexpr std::size_t kAltStack = 1 << 16;  // the fault handler runs here when the stack itself overflowed
  void* alt = ::mmap(nullptr, kAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (alt != MAP_FAILED) {
    g_alt_stack.ss_sp = alt;
    g_alt_stack.ss_size = kAltStack;
  }
#if defined(__GLIBC__)
  ::on_exit(on_exit_hook, nullptr);
#endif
  std::at_quick_exit(on_quick_exit_hook);
  const std::uint64_t base = address_space_bytes();
  shared->vm_base = shared->vm_after = g_vm_after = base;
  rlimit inherited{};
  ::getrlimit(RLIMIT_AS, &inherited);
  shared->inherited_as = inherited.rlim_cur == RLIM_INFINITY ? 0 : inherited.rlim_cur;
  if (memory_limit_gib > 0) {
    // On top of what the child inherits (a sanitizer reserves terabytes).
    // A worker may keep up to one limit's worth between calls before it is
    // replaced (core/isolation/worker.h), and a child per call one decoy call's
    // (core/isolation/isolated_apply.cc), so the hard limit is two; each call gets the
    // soft limit of what the process holds before it plus one (arm_call,
    // settle_for_next_call). Never above the hard limit ropecheck was
    // started with (it cannot be raised).
    g_hard_limit = base + gib_bytes(memory_limit_gib) * 2;
    if (inherited.rlim_max != RLIM_INFINITY && g_hard_limit > inherited.rlim_max) g_hard_limit = inherited.rlim_max;
    std::uint64_t soft = base + gib_bytes(memory_limit_gib);
    if (soft > g_hard_limit) soft = g_hard_limit;
    const rlimit r{soft, g_hard_limit};
    ::setrlimit(RLIMIT_AS, &r);
  }
  if (!worker) arm_call(shared, memory_limit_gib, false);
}

void arm_call(ChildShared* shared, double memory_limit_gib, bool worker) {
  // Default actions and no blocked signal: the parent's interrupt handling
  // and a sanitizer's report-and-exit handlers are not the child's, nor is
  // what an earlier call in a worker installed.
  for (int sig : {SIGINT, SIGTERM, SIGALRM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGFPE, SIGILL, SIGABRT, SIGUSR1, SIGUSR2,
                  SIGVTALRM, SIGPROF})
    ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (g_alt_stack.ss_sp) ::sigaltstack(&g_alt_stack, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_child_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  ::sigaction(SIGSEGV, &sa, nullptr);
  ::sigaction(SIGBUS, &sa, nullptr);
  std::set_new_handler(on_allocation_failure);
  set_fp_control(fp_control_default());  // what an earlier call in a worker left is not this one's
  shared->fp_left[0] = '\0';
  if (worker) {
    if (memory_limit_gib > 0 && g_hard_limit > 0) {
      std::uint64_t soft = g_vm_after + gib_bytes(memory_limit_gib);
      if (soft > g_hard_limit) soft = g_hard_limit;
      const rlimit r{soft, g_hard_limit};
      ::setrlimit(RLIMIT_AS, &r);
    }
    shared->arm_errno = arm_layout(shared);
  } else {
    // A child per call: its read-only inputs, in its own page tables (the
    // mapping is shared with ropecheck, its protection is not).
    for (int i = 0; i < ChildOptions::kReadOnlyRanges; ++i)
      if (shared->read_only_end[i] > shared->read_only_begin[i] &&
          ::mprotect(reinterpret_cast<void*>(shared->read_only_begin[i]),
                     shared->read_only_end[i] - shared->read_only_begin[i], PROT_READ) != 0)
        shared->arm_errno = errno;
  }
  errno = 0;
}

namespace {

// The body closed fd or put another file in its place (a library that
// closes every descriptor it did not open does): the child cannot answer.
[[noreturn]] void lost_channel(ChildShared* shared) {
  shared->lost_channel = 1;
  ::_exit(126);
}

bool same_file(int fd, const struct stat& was) {
  struct stat now {};
  return ::fstat(fd, &now) == 0 && now.st_dev == was.st_dev && now.st_ino == was.st_ino;
}

}  // namespace

void settle_for_next_call(ChildShared* shared, double memory_limit_gib) {
  const itimerval zero{};
  for (int which : {ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF}) ::setitimer(which, &zero, nullptr);
  // timer_create(2) timers, listed by id ("ID: 3") in /proc/self/timers.
  if (const int fd = ::open("/proc/self/timers", O_RDONLY | O_CLOEXEC); fd >= 0) {
    char b[4096];
    const ssize_t n = ::read(fd, b, sizeof b - 1);
    ::close(fd);
    for (ssize_t i = 0; n > 0 && i + 3 < n; ++i) {
      if (b[i] != 'I' || b[i + 1] != 'D' || b[i + 2] != ':') continue;
      long id = 0;
      for (i += 3; i < n && b[i] == ' '; ++i) {
      }
      for (; i < n && b[i] >= '0' && b[i] <= '9'; ++i) id = id * 10 + (b[i] - '0');
      ::syscall(SYS_timer_delete, id);
    }
  }
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);
  const timespec now{};
  while (::sigtimedwait(&all, nullptr, &now) > 0) {
  }
  // The judged call's memory limit on top of what the decoy left held.
  g_vm_after = address_space_bytes();
  if (memory_limit_gib > 0 && g_hard_limit > 0) {
    std::uint64_t soft = g_vm_after + gib_bytes(memory_limit_gib);
    if (soft > g_hard_limit) soft = g_hard_limit;
    const rlimit r{soft, g_hard_limit};
    ::setrlimit(RLIMIT_AS, &r);
  }
  arm_call(shared, memory_limit_gib, /*worker=*/false);
}

void hold_signals_after_body() {
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_BLOCK, &all, nullptr);
}

void flush_kernel_output() {
  std::fflush(stdout);
  std::fflush(stderr);
}

void record_fp_left(ChildShared* shared) {
  const std::string changed = describe_fp_change(fp_control_default(), fp_control_now());
  std::snprintf(shared->fp_left, sizeof shared->fp_left, "%s", changed.c_str());
}

void answer_once(ChildShared* shared, int fd) {
  if (::send(fd, "r", 1, MSG_NOSIGNAL) != 1) lost_channel(shared);
}

void serve_calls(ChildShared* shared, int fd, double memory_limit_gib,
                 const std::function<int(char*, std::size_t)>& body) {
  struct stat channel {};
  if (::fstat(fd, &channel) != 0) ::_exit(126);
  for (;;) {
    char c;
    const ssize_t k = ::recv(fd, &c, 1, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k != 1) ::_exit(0);  // the parent closed its end: it retired this worker
    // Processes an earlier call left that were reparented here and have
    // ended since (the call found nothing running, or it was retired):
    // reaped, so zombies never pile up in a worker.
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    arm_call(shared, memory_limit_gib, true);
    if (shared->arm_errno == 0) {
      shared->status = body(shared->message, sizeof shared->message);
      hold_signals_after_body();
      shared->message[sizeof shared->message - 1] = '\0';
      shared->returned = 1;
      record_fp_left(shared);
    }
    flush_kernel_output();
    shared->state_left = lingering_state();
    ::signal(SIGCONT, SIG_DFL);  // the next call's SIGCONT runs nothing of this one
    shared->vm_after = g_vm_after = address_space_bytes();
    shared->done_seq = shared->seq;
    if (!same_file(fd, channel)) lost_channel(shared);
    if (::send(fd, "r", 1, MSG_NOSIGNAL) != 1) lost_channel(shared);
    // Stopped until the next call (the parent reads nothing before it sees
    // the stop, and sends SIGCONT with the next request).
    ::kill(0, SIGSTOP);
  }
}

}  // namespace ropecheck
