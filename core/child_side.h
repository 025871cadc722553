// The child's half of core/child_process.h: the page it shares with the
// parent, and its preparation before the body runs (own process group,
// death with the parent, signal handlers that name a crash, exit hooks that
// record a status, the memory limit). Internal to core/.
#ifndef ROPECHECK_CORE_CHILD_SIDE_H_
#define ROPECHECK_CORE_CHILD_SIDE_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/child_process.h"

namespace ropecheck {

enum class FaultKind : int { kNone = 0, kGuard, kNull, kStack, kOther };

// Written by the child, read by the parent once the child is dead.
struct ChildShared {
  int returned;
  int status;
  int exit_called, exit_status;  // exit() inside the body
  int quick_exit_called, quick_exit_status;
  int allocation_refused;  // operator new failed (the memory limit)
  int fault_kind;          // FaultKind of the first SIGSEGV/SIGBUS
  int fault_guard;         // index into ChildOptions::guards for kGuard
  int fault_errno;         // errno when the fault hit (ENOMEM: a failed allocation)
  std::uintptr_t fault_addr;
  char message[1024];
};

// In the child, right after fork(): never returns on failure (it _exits).
void prepare_child(ChildShared* shared, const ChildOptions& o, pid_t parent);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CHILD_SIDE_H_
