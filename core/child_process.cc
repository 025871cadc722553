#include "core/child_process.h"

#include <unistd.h>

#include <cstring>
#include <new>

#include "core/child_side.h"
#include "core/child_watch.h"

namespace ropecheck {

ChildRun run_in_child(const ChildOptions& o, const std::function<int(char*, std::size_t)>& body) {
  auto* shared = new (map_for_child(sizeof(ChildShared))) ChildShared{};
  set_guard_table(shared, o);
  std::vector<SharedRange> share = o.share;
  share.push_back({shared, sizeof(ChildShared)});
  const pid_t parent = ::getpid();
  Forked f;
  try {
    f = fork_child(share, [&](int fd) {
      prepare_child(shared, parent, o.memory_limit_gib, /*worker=*/false);
      shared->status = body(shared->message, sizeof shared->message);
      shared->message[sizeof shared->message - 1] = '\0';
      shared->returned = 1;
      answer_once(shared, fd);
      for (;;) ::pause();  // the parent looks at what is left, then kills it
    });
  } catch (...) {
    unmap_for_child(shared, sizeof(ChildShared));
    throw;
  }
  siginfo_t info{};
  const End end = wait_for_child(f.pid, f.fd, o.timeout_seconds, &info);
  ChildRun run;
  if (end == End::kReturned && o.check_leftovers) run.failure = leftovers(f.pid);
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
