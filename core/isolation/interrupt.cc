// SPDX-License-Identifier: MIT
// SIGINT and SIGTERM turned into a clean stop.
#include "core/isolation/interrupt.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <ctime>
#include <mutex>

#include "core/isolation/host_guard.h"
#include "core/isolation/stderr_write.h"

namespace ropecheck {
namespace {

std::atomic<int> g_signal{0};
int g_pipe[2] = {-1, -1};
// The first signal came forwarded by the supervising parent (cli's verdict
// supervisor), and when: the same signal sent to the whole process group
// reaches this process twice, directly and forwarded, in either order, and
// is one interrupt, not two.
std::atomic<bool> g_first_forwarded{false};
std::atomic<long long> g_first_ns{0};

long long now_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe (POSIX.1-2008)
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

bool forwarded(const siginfo_t* si) {
  return si && si->si_code == SI_QUEUE && si->si_pid == ::getppid() && si->si_value.sival_int == kForwardedSignalTag;
}

const char* name_of(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

void on_signal(int sig, siginfo_t* si, void*) {
  int none = 0;
  const bool fwd = forwarded(si);
  if (!g_signal.compare_exchange_strong(none, sig)) {  // the second one
    // ... unless it is the first one again: its forwarded copy, or the
    // direct one arriving after its forwarded copy (within a second).
    if (none == sig && (fwd || (g_first_forwarded.load() && now_ns() - g_first_ns.load() < 1000000000LL))) return;
    say_to_stderr("\nropecheck: ");
    say_to_stderr(name_of(sig));
    say_to_stderr(" again: stopping at once\n");
    ::_exit(128 + sig);
  }
  g_first_forwarded.store(fwd);
  g_first_ns.store(now_ns());
  [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], "x", 1);
  if (active_host_guard()) ::alarm(2);  // an in-process kernel call may never return
}

void on_alarm(int) {
  const int sig = g_signal.load();
  if (const char* what = active_host_guard(); sig && what) {
    say_to_stderr("\nropecheck: interrupted while ");
    say_to_stderr(what);
    say_to_stderr(" does not return; stopping without a report\n");
    ::_exit(128 + sig);
  }
}

}  // namespace

void install_interrupt_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (::pipe2(g_pipe, O_NONBLOCK | O_CLOEXEC) != 0) return;
    struct sigaction sa {};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;  // stdio and waitpid go on; poll() wakes on the pipe
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    sa = {};
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = on_alarm;
    ::sigaction(SIGALRM, &sa, nullptr);
  });
}

int interrupt_signal() { return g_signal.load(); }
int interrupt_fd() { return g_pipe[0]; }
const char* interrupt_name() { return name_of(g_signal.load()); }
int interrupted_exit_code() { return 128 + g_signal.load(); }

}  // namespace ropecheck
