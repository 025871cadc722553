#include "core/host_guard.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__SANITIZE_ADDRESS__)
#define ROPECHECK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROPECHECK_SANITIZED 1
#endif
#endif

namespace ropecheck {
namespace {

std::atomic<const char*> g_what{nullptr};
std::atomic<int> g_code{0};

// write(2) only: these run inside exit() or a signal handler.
void say(const char* s) {
  for (std::size_t n = std::strlen(s); n > 0;) {
    const ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
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
  say(b + i);
}

void stop(const char* what, const char* how, int status, bool has_status) {
  say("\nerror: ");
  say(what);
  say(how);
  if (has_status) {
    say_int(status);
    say(")");
  }
  say("; ropecheck stops here without a verdict (docs/RELIABILITY.md)\n");
}

void on_process_exit(int status, void*) {
  if (const char* what = g_what.load()) {
    stop(what, " called exit(", status, true);
    ::_exit(g_code.load());
  }
}

void on_quick_exit() {
  if (const char* what = g_what.load()) {
    stop(what, " called quick_exit()", 0, false);
    ::_exit(g_code.load());
  }
}

[[maybe_unused]] void on_fatal_signal(int sig) {
  if (const char* what = g_what.load()) {
    say("\nerror: ");
    say(what);
    say(" crashed with signal ");
    say_int(sig);
    say(" inside ropecheck's own process; no verdict (docs/RELIABILITY.md)\n");
  }
  // SA_RESETHAND restored the default action, which ends the process.
  ::raise(sig);
}

void install() {
#if defined(__GLIBC__)
  ::on_exit(on_process_exit, nullptr);  // glibc: the handler sees exit()'s status
#else
  std::atexit([] { on_process_exit(0, nullptr); });
#endif
  std::at_quick_exit(on_quick_exit);
#if !defined(ROPECHECK_SANITIZED)  // a sanitizer's own report says more
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) ::sigaction(sig, &sa, nullptr);
  }
#endif
}

}  // namespace

HostGuard::HostGuard(std::string what, int exit_code) : what_(std::move(what)) {
  static std::once_flag once;
  std::call_once(once, install);
  previous_ = g_what.exchange(what_.c_str());
  previous_code_ = g_code.exchange(exit_code);
}

HostGuard::~HostGuard() {
  g_what.store(previous_);
  g_code.store(previous_code_);
}

const char* active_host_guard() { return g_what.load(); }

void clear_host_guards_in_child() { g_what.store(nullptr); }

}  // namespace ropecheck
