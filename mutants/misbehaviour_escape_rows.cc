// SPDX-License-Identifier: MIT
// The misbehaviours that leave work running after the call returns, outside
// what ropecheck waits for: a thread, a child, a daemon out of the call's
// process group (each overwriting q_out 50 ms later, forever), and a child
// that sleeps holding every inherited descriptor.
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "mutants/kept_results.h"
#include "mutants/misbehaviour_rows.h"

namespace ropecheck::mutant {
namespace {

// Overwrites q_out with garbage 50 ms from now, forever: work a kernel left
// running after apply returned.
[[noreturn]] void scribble_forever(void* q_out, std::size_t bytes) {
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (unsigned char v = 0;; ++v) std::memset(q_out, v, bytes);
}

void background_thread(MisbehavingCall& c) { std::thread(scribble_forever, c.p->q_out, q_bytes(c.p)).detach(); }

void forked_writer(MisbehavingCall& c) {
  if (::fork() == 0) scribble_forever(c.p->q_out, q_bytes(c.p));
}

void daemon(MisbehavingCall& c) {
  if (const pid_t mid = ::fork(); mid == 0) {
    ::setsid();  // out of the call's process group
    if (::fork() == 0) scribble_forever(c.p->q_out, q_bytes(c.p));
    ::_exit(0);  // its child is an orphan now
  } else if (mid > 0) {
    ::waitpid(mid, nullptr, 0);
  }
}

void sleeping_child(MisbehavingCall&) {
  if (::fork() == 0) {
    ::prctl(PR_SET_NAME, "rc_sleeping_kid");  // the test looks for it afterwards
    ::sleep(1000);
    ::_exit(0);
  }
}

}  // namespace

void add_escape_rows(MisbehaviourRows& rows) {
  row_of(rows, Misbehaviour::background_thread).after = background_thread;
  row_of(rows, Misbehaviour::forked_writer).after = forked_writer;
  row_of(rows, Misbehaviour::daemon).after = daemon;
  row_of(rows, Misbehaviour::sleeping_child).after = sleeping_child;
}

}  // namespace ropecheck::mutant
