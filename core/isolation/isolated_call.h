// SPDX-License-Identifier: MIT
// One isolated call of a wrapped kernel (core/isolation/isolation.h): its
// planned buffers placed (mappings of their own for a child per call, a
// region of the worker's arena for a worker), the call run there with its
// timeout and read-only ranges, and what the region keeps for the next
// call. Also the wrapper a call belongs to and the cos/sin cache the
// calling thread named last.
#ifndef ROPECHECK_CORE_ISOLATION_ISOLATED_CALL_H_
#define ROPECHECK_CORE_ISOLATION_ISOLATED_CALL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/isolation/call_timing.h"
#include "core/isolation/child_process.h"
#include "core/isolation/guarded_copies.h"
#include "core/isolation/isolation.h"
#include "core/isolation/worker.h"
#include "core/isolation/worker_slot.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// A wrapped kernel: the table isolate() hands out calls `inner` isolated.
struct Isolated {
  const ropecheck_impl_t* inner;
  IsolationOptions options;
  ropecheck_impl_t table;
};

// The cos/sin cache the calling thread named last (name_cache_contents).
struct NamedCache {
  const void* data = nullptr;
  std::uint64_t generation = 0;
  const std::vector<std::pair<std::size_t, std::size_t>>* live = nullptr;  // null: every byte
};
NamedCache& thread_named_cache();

// One isolated call: the buffers planned in `b` are placed (mappings of
// their own for a child per call, a region of the worker's arena for a
// worker), filled by the caller's `fill` (which may patch pointers to the
// copies first), and the call run.
class IsolatedCall {
 public:
  // named: the named cache the call's first buffer is, if any.
  IsolatedCall(const Isolated& w, GuardedCopies& b, bool apply, const HeldCache& named = {});
  // elements: what the call computes (q and k's elements, or the cache's).
  // decoy (a child per call only): run in the child before the call.
  ChildRun run(const Request& r, double elements, std::function<void()> decoy = {});
  // What a worker measured of a timed call (its request page, read once it
  // stopped); not measured for a child per call.
  CallTiming timing() const { return slot_ ? slot_->request()->timing : CallTiming{}; }
  // After a call whose buffers show damage: nothing of it may reach the
  // next call.
  void retire() {
    if (slot_) slot_->worker().retire();
  }
  // Whether the region's first buffer holds `c` from its last call (a
  // named cache, planned first, is placed where that call's was).
  bool holds(const HeldCache& c) const { return slot_ && c.generation != 0 && held_ == c; }
  // The held cache's pages are not armed again (its guards are listed
  // again): mprotect() walks every page of its range, and over up to 64 MiB
  // of cache per call it was 5% of a gate. Its body is read-only in the
  // worker instead, made so once (child_side.cc keeps it so until a call's
  // layout covers it): a write into it faults, so nothing has to prove it
  // unchanged after the call, which compared 10 GB of caches per quick gate.
  void leave_armed(const HeldCache& c, std::pair<std::uintptr_t, std::uintptr_t> body) {
    arm_skip_ = GuardedCopies::pages_of(c.bytes) * page_size();
    read_only_ = body;
  }
  // The call's first buffer is the named cache `c`, proven unchanged after
  // the call: the region keeps it for a later call (when the call was
  // placed at the region's start, where a later call looks for it).
  // Only an arena of its own keeps a cache (worker_slot.h): another
  // kernel's worker could write into one kept in a shared arena.
  void keep(const HeldCache& c) {
    if (at_start_ && slot_ && slot_->keeps_caches()) kept_ = c;
  }
  // The caller has read what it needs from the buffers.
  ~IsolatedCall();

 private:
  const Isolated& w_;
  GuardedCopies& b_;
  WorkerSlot* slot_ = nullptr;
  int region_ = 0;
  bool at_start_ = false;
  std::uintptr_t arm_skip_ = 0;
  std::pair<std::uintptr_t, std::uintptr_t> read_only_{0, 0};
  HeldCache held_, kept_;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_ISOLATED_CALL_H_
