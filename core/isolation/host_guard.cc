// SPDX-License-Identifier: MIT
// Naming an exit or crash of untrusted code in ropecheck's own process.
#include "core/isolation/host_guard.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/isolation/read_only_watch.h"
#include "core/isolation/stderr_write.h"

#if defined(__SANITIZE_ADDRESS__)
#define ROPECHECK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROPECHECK_SANITIZED 1
#endif
#endif

namespace ropecheck {
namespace {

// One slot per active span. Spans open and close on several threads at
// once (check --jobs with in-process kernels), in no stack order, so each
// claims a slot of its own; the handlers read them without a lock.
constexpr int kSlots = 1024;
struct Slot {
  std::atomic<const char*> what{nullptr};
  std::atomic<int> code{0};
};
Slot g_slots[kSlots];
// The calling thread's innermost span (exit() runs its handlers on the
// thread that called it, a synchronous signal on the faulting thread).
thread_local int t_innermost = -1;

// Never 0: a handler may run between a slot's claim and its code's store.
int exit_status(const Slot& s) {
  const int c = s.code.load();
  return c != 0 ? c : 1;
}

// The span to name: this thread's innermost, else any active one. Its
// description and status are read once: another thread may close its span
// (and free the text) between a check and a second read.
struct Named {
  const char* what;
  int status;
};
bool active_slot(Named* out) {
  auto take = [out](const Slot& s) {
    const char* w = s.what.load();
    if (w == nullptr) return false;
    *out = {w, exit_status(s)};
    return true;
  };
  if (t_innermost >= 0 && take(g_slots[t_innermost])) return true;
  for (const Slot& s : g_slots)
    if (take(s)) return true;
  return false;
}

// The first handler to stop the process wins; a second thread that calls
// exit() meanwhile (two in-process kernels on --jobs threads) waits here for
// the first's _exit instead of running the exit handlers beside it.
std::atomic<bool> g_stopping{false};
void wait_if_stopping() {
  if (g_stopping.exchange(true))
    for (;;) ::pause();
}


void say_int(int v) {
  char b[16];
  int i = 15;
  b[i] = '\0';
  const bool neg = v < 0;
  unsigned u = neg ? 0u - static_cast<unsigned>(v) : static_cast<unsigned>(v);
  do b[--i] = static_cast<char>('0' + u % 10);
  while ((u /= 10) && i > 1);
  if (neg) b[--i] = '-';
  say_to_stderr(b + i);
}

void stop(const char* what, const char* how, int status, bool has_status) {
  say_to_stderr("\nerror: ");
  say_to_stderr(what);
  say_to_stderr(how);
  if (has_status) {
    say_int(status);
    say_to_stderr(")");
  }
  say_to_stderr("; ropecheck stops here without a verdict (docs/RELIABILITY.md)\n");
}

void on_process_exit(int status, void*) {
  Named n;
  if (active_slot(&n)) {
    wait_if_stopping();
    stop(n.what, " called exit(", status, true);
    ::_exit(n.status);
  }
}

void on_quick_exit() {
  Named n;
  if (active_slot(&n)) {
    wait_if_stopping();
    stop(n.what, " called quick_exit()", 0, false);
    ::_exit(n.status);
  }
}

// SIGSEGV and SIGBUS: a write into an input watched read-only in process
// (core/isolation/read_only_watch.h) is recorded and let through;
// anything else is fatal, as below (the default action restored first).
[[maybe_unused]] void on_fault(int sig, siginfo_t* si, void*);

[[maybe_unused]] void on_fatal_signal(int sig) {
  Named n;
  if (active_slot(&n)) {
    say_to_stderr("\nerror: ");
    say_to_stderr(n.what);
    say_to_stderr(" crashed with signal ");
    say_int(sig);
    say_to_stderr(" inside ropecheck's own process; no verdict (docs/RELIABILITY.md)\n");
  }
  // SA_RESETHAND restored the default action, which ends the process.
  ::raise(sig);
}

void on_fault(int sig, siginfo_t* si, void*) {
  if (si && si->si_code > 0 && read_only_watch_fault(reinterpret_cast<std::uintptr_t>(si->si_addr))) return;
  ::signal(sig, SIG_DFL);
  on_fatal_signal(sig);
}

std::atomic<bool> g_fault_handler{false};

// exit() runs its handlers last registered first, and static objects
// register their destructors when they are first built. Registered only at
// the first span, the handler ran after the destructors of every static the
// gate built later, while other --jobs threads still used them: a kernel's
// exit(0) became a crash of ropecheck (seen in plugin_isolation). So it is
// registered again at each of the first kRegistrations spans, by when the
// gate has judged its first cases and built its statics; the handler runs
// once (wait_if_stopping) however often it is registered.
constexpr int kRegistrations = 32;
std::atomic<int> g_registrations{0};
void register_exit_handlers() {
  if (g_registrations.load() >= kRegistrations || g_registrations.fetch_add(1) >= kRegistrations) return;
#if defined(__GLIBC__)
  ::on_exit(on_process_exit, nullptr);  // glibc: the handler sees exit()'s status
#else
  std::atexit([] { on_process_exit(0, nullptr); });
#endif
  std::at_quick_exit(on_quick_exit);
}

void install() {
#if !defined(ROPECHECK_SANITIZED)  // a sanitizer's own report says more
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (int sig : {SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) ::sigaction(sig, &sa, nullptr);
  }
  struct sigaction fa {};
  fa.sa_sigaction = on_fault;
  fa.sa_flags = SA_SIGINFO | SA_NODEFER;  // not reset: a watched write is let through, and more may follow
  bool both = true;
  for (int sig : {SIGSEGV, SIGBUS}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) ::sigaction(sig, &fa, nullptr);
    else both = false;
  }
  g_fault_handler = both;
#endif
}

}  // namespace

HostGuard::HostGuard(std::string what, int exit_code) : what_(std::move(what)) {
  host_fault_handler_installed();
  register_exit_handlers();
  previous_ = t_innermost;
  for (int i = 0; i < kSlots; ++i) {
    const char* expected = nullptr;
    if (g_slots[i].what.compare_exchange_strong(expected, what_.c_str())) {
      g_slots[i].code.store(exit_code);
      slot_ = i;
      t_innermost = i;
      break;
    }
  }
  // Over kSlots spans at once (never, with --jobs <= 256): this one is not
  // named, but the others still are.
}

HostGuard::~HostGuard() {
  if (slot_ >= 0) g_slots[slot_].what.store(nullptr);
  t_innermost = previous_;
}

const char* active_host_guard() {
  Named n;
  return active_slot(&n) ? n.what : nullptr;
}

bool host_fault_handler_installed() {
  static std::once_flag once;  // the one place install() runs
  std::call_once(once, install);
  return g_fault_handler.load();
}

bool host_fault_handler_in_place() {
  if (!host_fault_handler_installed()) return false;
  for (int sig : {SIGSEGV, SIGBUS}) {
    struct sigaction now {};
    if (::sigaction(sig, nullptr, &now) != 0 || !(now.sa_flags & SA_SIGINFO) || now.sa_sigaction != on_fault)
      return false;
  }
  return true;
}

void clear_host_guards_in_child() {
  for (Slot& s : g_slots) s.what.store(nullptr);
  t_innermost = -1;
}

}  // namespace ropecheck
