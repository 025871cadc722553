#include "core/child_side.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "core/host_guard.h"

namespace ropecheck {
namespace {

ChildShared* g_shared = nullptr;
constexpr int kMaxRanges = 64;
std::uintptr_t g_range_begin[kMaxRanges], g_range_end[kMaxRanges];
int g_ranges = 0;

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
void on_fault(int sig, siginfo_t* si, void* ctx) {
  const int saved_errno = errno;
  ChildShared* s = g_shared;
  if (s && s->fault_kind == static_cast<int>(FaultKind::kNone)) {
    const auto a = reinterpret_cast<std::uintptr_t>(si->si_addr);
    const std::uintptr_t sp = stack_pointer(ctx);
    FaultKind kind = FaultKind::kOther;
    for (int i = 0; i < g_ranges; ++i)
      if (a >= g_range_begin[i] && a < g_range_end[i]) {
        kind = FaultKind::kGuard;
        s->fault_guard = i;
      }
    // The lowest 64 KiB are never mapped (vm.mmap_min_addr): a NULL
    // pointer plus an offset. A fault within 64 KiB of the stack pointer
    // is the stack's guard page: a stack overflow.
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

// Bytes of address space this process already has (the first field of
// /proc/self/statm, in pages).
std::uint64_t address_space_bytes() {
  std::uint64_t pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%" SCNu64, &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

void prepare_child(ChildShared* shared, const ChildOptions& o, pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent is already gone
  clear_host_guards_in_child();
  g_shared = shared;
  g_ranges = 0;
  for (const GuardRange& g : o.guards) {
    if (g_ranges == kMaxRanges) break;
    g_range_begin[g_ranges] = g.begin;
    g_range_end[g_ranges++] = g.end;
  }
  // Default actions and no blocked signal: the parent's interrupt handling
  // and a sanitizer's report-and-exit handlers are not the child's.
  for (int sig : {SIGINT, SIGTERM, SIGALRM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGFPE, SIGILL, SIGABRT})
    ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  constexpr std::size_t kAltStack = 1 << 16;  // the fault handler runs here when the stack itself overflowed
  void* alt = ::mmap(nullptr, kAltStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (alt != MAP_FAILED) {
    stack_t ss{};
    ss.ss_sp = alt;
    ss.ss_size = kAltStack;
    ::sigaltstack(&ss, nullptr);
  }
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  ::sigaction(SIGSEGV, &sa, nullptr);
  ::sigaction(SIGBUS, &sa, nullptr);
#if defined(__GLIBC__)
  ::on_exit(on_exit_hook, nullptr);
#endif
  std::at_quick_exit(on_quick_exit_hook);
  std::set_new_handler(on_allocation_failure);
  if (o.memory_limit_gib > 0) {
    // On top of what the child inherits (a sanitizer reserves terabytes).
    const auto limit = address_space_bytes() + static_cast<std::uint64_t>(o.memory_limit_gib * 1073741824.0);
    const rlimit r{limit, limit};
    ::setrlimit(RLIMIT_AS, &r);
  }
  errno = 0;
}

}  // namespace ropecheck
