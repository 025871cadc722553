// SPDX-License-Identifier: MIT
// The misbehaviours aimed at the process the kernel runs in, its standard
// streams, or ropecheck's own processes: crash, hang, exit_in_apply,
// stack_overflow, null_after_alloc, raw_exit, closes_stdout(_and_stderr),
// prints_stdout, stops_ropecheck, kills_ropecheck.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mutants/misbehaviour_rows.h"

namespace ropecheck::mutant {
namespace {

using Status = std::optional<ropecheck_status_t>;

volatile bool g_deeper = true;  // always true; the compiler cannot know

int recurse(int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return (g_deeper ? recurse(depth + 1) : 0) + frame[0];
}

// A daemon (out of the call's process group) that sends sig to each of its
// ancestors named ropecheck (its worker or child, the run, the supervisor),
// then stays a while: the orphan of issue #49. Ancestors only, so that no
// other run on the machine is reached where nothing fences it.
void signal_ropecheck_from_a_daemon(int sig) {
  if (const pid_t mid = ::fork(); mid == 0) {
    ::setsid();
    if (::fork() == 0) {
      for (pid_t pid = ::getppid(); pid > 1;) {
        char path[64], stat[512] = {};
        std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
        FILE* f = std::fopen(path, "r");
        if (!f) break;
        const std::size_t got = std::fread(stat, 1, sizeof stat - 1, f);
        std::fclose(f);
        stat[got] = '\0';
        const char* open = std::strchr(stat, '(');
        const char* close = std::strrchr(stat, ')');
        if (!open || !close) break;
        if (std::strncmp(open + 1, "ropecheck", 9) == 0) ::kill(pid, sig);
        int ppid = 0;
        if (std::sscanf(close + 2, "%*c %d", &ppid) != 1) break;
        pid = static_cast<pid_t>(ppid);
      }
      ::sleep(3);
      ::_exit(0);
    }
    ::_exit(0);
  } else if (mid > 0) {
    ::waitpid(mid, nullptr, 0);
  }
}

Status crash(MisbehavingCall& c) {
  volatile std::uintptr_t wild = 64;  // an address the compiler cannot see through
  if (c.big) *reinterpret_cast<volatile int*>(wild) = 1;
  return std::nullopt;
}

Status hang(MisbehavingCall& c) {
  if (c.big)
    for (volatile bool forever = true; forever;) {
    }
  return std::nullopt;
}

Status exit_in_apply(MisbehavingCall& c) {
  if (c.big) std::exit(0);
  return std::nullopt;
}

Status stack_overflow(MisbehavingCall& c) {
  if (c.big) return static_cast<ropecheck_status_t>(recurse(0));
  return std::nullopt;
}

Status null_after_alloc(MisbehavingCall& c) {
  if (c.big) {
    volatile std::size_t huge = std::size_t{1} << 37;
    auto* block = static_cast<volatile char*>(std::malloc(huge));
    block[0] = 1;  // unchecked
    std::free(const_cast<char*>(block));
  }
  return std::nullopt;
}

Status raw_exit(MisbehavingCall& c) {
  if (c.big) ::_exit(0);
  return std::nullopt;
}

Status closes_stdout(MisbehavingCall& c) {
  if (c.big) ::close(1);
  return std::nullopt;
}

Status closes_stdout_and_stderr(MisbehavingCall& c) {
  if (c.big) {
    ::close(1);
    ::close(2);
  }
  return std::nullopt;
}

Status prints_stdout(MisbehavingCall& c) {
  std::printf("misbehaving_prints_stdout: printf from apply (%lld tokens)\n", static_cast<long long>(c.p->num_tokens));
  static const char kLine[] = "misbehaving_prints_stdout: write(1) from apply\n";
  [[maybe_unused]] const ssize_t w = ::write(1, kLine, sizeof kLine - 1);
  return std::nullopt;
}

void stops_ropecheck(MisbehavingCall& c) {
  if (c.big) signal_ropecheck_from_a_daemon(SIGSTOP);
}

void kills_ropecheck(MisbehavingCall& c) {
  if (c.big) signal_ropecheck_from_a_daemon(SIGKILL);
}

}  // namespace

void add_process_rows(MisbehaviourRows& rows) {
  row_of(rows, Misbehaviour::crash).before = crash;
  row_of(rows, Misbehaviour::hang).before = hang;
  row_of(rows, Misbehaviour::exit_in_apply).before = exit_in_apply;
  row_of(rows, Misbehaviour::stack_overflow).before = stack_overflow;
  row_of(rows, Misbehaviour::null_after_alloc).before = null_after_alloc;
  row_of(rows, Misbehaviour::raw_exit).before = raw_exit;
  row_of(rows, Misbehaviour::closes_stdout).before = closes_stdout;
  row_of(rows, Misbehaviour::closes_stdout_and_stderr).before = closes_stdout_and_stderr;
  row_of(rows, Misbehaviour::prints_stdout).before = prints_stdout;
  row_of(rows, Misbehaviour::stops_ropecheck).after = stops_ropecheck;
  row_of(rows, Misbehaviour::kills_ropecheck).after = kills_ropecheck;
}

}  // namespace ropecheck::mutant
