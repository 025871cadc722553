// SPDX-License-Identifier: MIT
// "Exit status 0 means every case was judged and passed" in every mode: the definitions of cli/verdict_supervisor.h.
#include "cli/verdict_supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "core/isolation/active_calls.h"
#include "core/isolation/interrupt.h"

namespace ropecheck::cli {
namespace {

pid_t g_child = -1;

void forward(int sig) {
  if (g_child <= 0) return;
  sigval v{};
  v.sival_int = kForwardedSignalTag;
  ::sigqueue(g_child, sig, v);
}

void say(const std::string& s) {
  std::fflush(stdout);
  std::fprintf(stderr, "ropecheck: %s\n", s.c_str());
}

struct Identity {
  bool open = false;
  dev_t dev = 0;
  ino_t ino = 0;
};

Identity identity_of(int fd) {
  struct stat st {};
  Identity id;
  if (::fstat(fd, &st) == 0) {
    id.open = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
  }
  return id;
}

// What the run tells the supervisor as it ends: its status, and why its
// report did not reach standard output ("" when it did). The supervisor
// says it, on its own standard error: the run's may be closed by then (a
// kernel in process closing both, issue #49, ended with status 1 and no word).
struct Told {
  int rc = 0;
  char why[200] = {};
};

// In the child, after the command: the report reached the standard output
// the run started with, whole. rc, or 1 when it did not (why in *told).
int checked_report(int rc, const Identity& started, Told* told) {
  std::cout.flush();
  const bool written = std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout);
  const int write_errno = errno;
  const Identity now = identity_of(1);
  std::string why;
  if (started.open && (!now.open || now.dev != started.dev || now.ino != started.ino))
    why = "standard output was closed or replaced during the run (by a kernel in ropecheck's own process?)";
  else if (!written)
    why = std::string("writing it failed (") + std::strerror(write_errno) + ")";
  if (why.empty()) return rc;
  std::snprintf(told->why, sizeof told->why, "%s", why.c_str());
  return rc == 0 ? 1 : rc;
}

// The child's side: runs the command and tells the supervisor its status
// through `done` before the process ends.
int run_child(const std::function<int()>& command, const Identity& started, int done_write, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // the supervisor is already gone
  keep_active_calls_board_from_children();
  Told t;
  const int rc = checked_report(command(), started, &t);
  t.rc = rc;
  // The status, told before the process ends: whatever ends it from here
  // on (exit handlers, destructors) must end it with this status too.
  [[maybe_unused]] const ssize_t w = ::write(done_write, &t, sizeof t);
  ::close(done_write);
  return rc;
}

// Waits for the run to end. The watchdog's part (issue #49): a SIGSTOP from
// outside stops the run (job control's stops, which stop this process too,
// are left alone); it is continued at once, and its verdict then does not
// count (`stopped` says what ran). False when the run was lost.
bool wait_for_run(pid_t pid, int* status, std::string* stopped) {
  for (;;) {
    if (::waitpid(pid, status, WUNTRACED) < 0) {
      if (errno == EINTR) continue;
      say(std::string("lost the run: waitpid: ") + std::strerror(errno));
      return false;
    }
    if (!WIFSTOPPED(*status)) return true;
    if (WSTOPSIG(*status) != SIGSTOP) continue;
    const std::string calls = active_calls_now();
    if (stopped->empty())
      *stopped = "the run was stopped by SIGSTOP from outside while " +
                 (calls.empty() ? std::string("no kernel call ran") : "the call(s) of " + calls + " ran");
    ::kill(pid, SIGCONT);
  }
}

// The status the supervisor ends with: the run's own when it ended by
// itself with the verdict it told; named otherwise.
int supervised_status(int status, const std::optional<Told>& told, const std::string& during,
                      const std::string& stopped) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    say(std::string("the run was ended by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")" +
        (told ? " after its verdict" : " before its verdict was complete") +
        (during.empty() ? std::string() : " during the call(s) of " + during + " (a process of theirs?)") +
        ": no verdict to pass");
    return 128 + sig;
  }
  if (!stopped.empty()) {
    say(stopped + " (a process of theirs? a kernel's processes can signal nothing outside their call when it is "
                  "isolated, docs/RELIABILITY.md); it was continued, and its verdict does not count: status 1");
    return 1;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  const int reported = told ? told->rc : -1;
  if (told && code == reported) return code;
  if (code == 0) {
    say(std::string("the run ended with status 0 ") +
        (told ? "where its verdict was " + std::to_string(reported) : "before its verdict was complete") +
        ": something in ropecheck's own process (a kernel or plugin run in process: --no-isolation, an in-process "
        "kernel, a plugin's constructors) ended it with _exit() or exit_group; no verdict, exit status 1");
    return 1;
  }
  return code;  // a failure already, and named by whoever chose it (a HostGuard's message, an interrupt)
}

}  // namespace

int run_supervised(const std::function<int()>& command) {
  if (const char* v = std::getenv("ROPECHECK_SUPERVISOR"); v && std::string(v) == "off") return command();
  const Identity started = identity_of(1);
  int done[2];
  if (::pipe2(done, O_CLOEXEC) != 0) {
    say(std::string("cannot start the run: pipe2: ") + std::strerror(errno));
    return 1;
  }
  std::cout.flush();
  std::fflush(nullptr);
  open_active_calls_board();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    say(std::string("cannot start the run: fork: ") + std::strerror(errno));
    return 1;
  }
  if (pid == 0) {
    ::close(done[0]);
    return run_child(command, started, done[1], parent);
  }
  ::close(done[1]);
  g_child = pid;
  struct sigaction sa {};
  sa.sa_handler = forward;
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  int status = 0;
  std::string stopped;
  if (!wait_for_run(pid, &status, &stopped)) return 1;
  const std::string during = active_calls_now();
  g_child = -1;
  std::optional<Told> told;
  if (Told t; ::read(done[0], &t, sizeof t) == static_cast<ssize_t>(sizeof t)) told = t;
  ::close(done[0]);
  if (told && told->why[0] != '\0') {
    told->why[sizeof told->why - 1] = '\0';
    say(std::string("the report could not be written to standard output: ") + told->why + "; no verdict was printed");
  }
  return supervised_status(status, told, during, stopped);
}

}  // namespace ropecheck::cli
