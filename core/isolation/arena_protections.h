// SPDX-License-Identifier: MIT
// How a worker protects its arena for a call (core/isolation/worker.h): the
// call's guard pages PROT_NONE, its read-only ranges (kept cos/sin caches)
// PROT_READ, the rest of its range read-write, applied as the difference
// from the protections the worker set for its earlier calls.
#ifndef ROPECHECK_CORE_ISOLATION_ARENA_PROTECTIONS_H_
#define ROPECHECK_CORE_ISOLATION_ARENA_PROTECTIONS_H_

#include "core/isolation/child_side.h"

namespace ropecheck {

// In the worker, before the body runs: the layout s describes (arm_begin,
// arm_end, the guard table, the read-only ranges). errno of the first
// mprotect() that failed (EINVAL for a range not page aligned), or 0; after
// a failure the call does not run and its worker is replaced.
int arm_layout(const ChildShared* s);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_ARENA_PROTECTIONS_H_
