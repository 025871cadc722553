// SPDX-License-Identifier: MIT
// Running untrusted code in a child process of its own per call.
#include "core/isolation/child_process.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <new>

#include "core/isolation/child_side.h"
#include "core/isolation/child_watch.h"

namespace ropecheck {

ChildRun run_in_child(const ChildOptions& o, const std::function<int(char*, std::size_t)>& body) {
  auto* shared = new (map_for_child(sizeof(ChildShared))) ChildShared{};
  set_guard_table(shared, o);
  for (int i = 0; i < ChildOptions::kReadOnlyRanges; ++i) {
    shared->read_only_begin[i] = o.read_only_begin[i];
    shared->read_only_end[i] = o.read_only_end[i];
  }
  std::vector<SharedRange> share = o.share;
  share.push_back({shared, sizeof(ChildShared)});
  const pid_t parent = ::getpid();
  Forked f;
  try {
    f = fork_child(share, [&](int fd) {
      prepare_child(shared, parent, o.memory_limit_gib, /*worker=*/false);
      if (o.decoy) {
        o.decoy();
        settle_for_next_call(shared, o.memory_limit_gib);
      }
      shared->status = body(shared->message, sizeof shared->message);
      hold_signals_after_body();
      shared->message[sizeof shared->message - 1] = '\0';
      shared->returned = 1;
      record_fp_left(shared);
      flush_kernel_output();
      answer_once(shared, fd);
      // Stopped at once, every thread and process of the group with it (as
      // a worker after each call): the parent counts what is left and reads
      // the outputs while nothing of the call runs, then kills it.
      ::kill(0, SIGSTOP);
      for (;;) ::pause();
    });
  } catch (...) {
    unmap_for_child(shared, sizeof(ChildShared));
    throw;
  }
  siginfo_t info{};
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(o.timeout_seconds));
  End end = wait_for_child(f, o.timeout_seconds, &info);
  if (end == End::kReturned) end = wait_until_stopped(f.pid, deadline, &info);
  ChildRun run;
  if (end == End::kReturned && o.check_leftovers) run.failure = leftovers(f, *shared);
  if (end == End::kReturned && run.failure.empty()) run.failure = state_left_failure(*shared);
  sweep(f.pid);  // everything the call started is dead from here on
  forget_child(f);
  run.returned = end == End::kReturned;
  run.status = shared->status;
  run.message.assign(shared->message, ::strnlen(shared->message, sizeof shared->message));
  if (end != End::kReturned) run.failure = describe_end(end, info, *shared, o, &run.interrupted);
  shared->~ChildShared();
  unmap_for_child(shared, sizeof(ChildShared));
  return run;
}

}  // namespace ropecheck
