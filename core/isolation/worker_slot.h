// SPDX-License-Identifier: MIT
// A worker per isolated implementation and gate thread, and the arena it
// shares with ropecheck: the request page, then the two regions its calls
// alternate between (core/isolation/isolated_call.cc places each call's guarded
// copies in them). What a worker runs for one call is a Request.
#ifndef ROPECHECK_CORE_ISOLATION_WORKER_SLOT_H_
#define ROPECHECK_CORE_ISOLATION_WORKER_SLOT_H_

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "core/isolation/call_timing.h"
#include "core/isolation/worker.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// What a worker runs for one call: written into the first page of its arena
// by this process while the worker is stopped; every pointer points into the
// arena, which the worker shares at the same address.
struct Request {
  bool apply;
  const ropecheck_apply_params_t* params;
  const ropecheck_freq_spec_t* freq;
  std::int32_t rotary_dim;
  std::int64_t rows;
  std::uint32_t dtype;
  void* out;
  // An apply timed in the worker (core/isolation/call_timing.h): the worker
  // writes what it measured into `timing`, which ropecheck reads once the
  // worker has stopped.
  bool timed;
  CallTiming timing;
};

// Runs the call r describes on `in` (in the worker); a timed apply's timing
// is written into r.
int serve(const ropecheck_impl_t& in, Request& r, char* e, std::size_t n);

// A named cache of `bytes` bytes a region holds, or is handed.
struct HeldCache {
  std::uint64_t generation = 0;  // 0: none
  std::size_t bytes = 0;
  bool operator==(const HeldCache&) const = default;
};

// The shared memory a worker works in: a page for the request, then two
// regions the calls alternate between (applies and cache builds each in
// turn), so two calls in a row of one implementation never see their
// buffers at the same addresses (call_kernel_twice,
// core/kernel/kernel_call.h). The arena grows, by a new one and a new
// worker, when a call needs more.
// The workers of one gate thread whose kernels come from one library (the
// built-in kernels, or one plugin's) share one arena, but for those of
// kernels handed a cos/sin cache (their own or the caller's), which keep it
// in their arena between calls (WorkerSlot::sharing_domain). A thread runs
// one call at a time, and every worker not in a call is stopped
// (core/isolation/worker.h), so a worker touches the arena only during its
// own call, whose buffers the parent filled for it; outside them it may
// read what an earlier call of a sibling kernel left there, never what a
// kernel of another library did. A kept cache is read-only only in the
// worker that kept it: another kernel's worker could write into it, so
// those keep their own arenas. An arena per worker had every page of two
// regions per implementation and thread allocated and cleared (the quick
// gate's 8 kernels on 2 threads: 1.1 GB, 0.29 M page faults, 6% of its
// time).
struct Arena {
  explicit Arena(std::size_t region_pages);
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  std::size_t bytes() const;
  unsigned char* base = nullptr;
  std::size_t region_pages = 0;
  // The named cache each region's first buffer holds from its last call
  // (an arena of one worker's only).
  std::array<HeldCache, 2> held{};
  pid_t owner;  // the process that mapped it (not unmapped from a child's exit)
};

// One worker of one implementation on one thread, in its arena.
class WorkerSlot {
 public:
  // owner: the isolated implementation it serves (its key); inner: the
  // implementation its worker calls; memory_limit_gib: the worker's limit.
  WorkerSlot(const void* owner, const ropecheck_impl_t* inner, double memory_limit_gib)
      : owner_key_(owner),
        inner_(inner),
        memory_limit_gib_(memory_limit_gib),
        owner_(::getpid()),
        domain_(sharing_domain(inner)) {}
  ~WorkerSlot() {
    if (::getpid() == owner_) drop();  // not from the thread_local destructors exit() runs in a child
  }
  WorkerSlot(const WorkerSlot&) = delete;
  WorkerSlot& operator=(const WorkerSlot&) = delete;

  const void* owner() const { return owner_key_; }
  // The region for the next call of this kind, `pages` long at least, and
  // its index (0 or 1); the worker started (or started again in a new
  // arena) first when needed.
  unsigned char* region_for(std::size_t pages, bool apply, int* index);
  // Where region `index` starts (a kept cache's front guard page).
  unsigned char* region_start(int index) const;
  // The named cache a region's first buffer holds from its last call, proven
  // unchanged by that call's checks; forgotten here, as the call now placed
  // there may write anything into the region (hold() says it again).
  const HeldCache& held(int region) const { return arena_->held[static_cast<std::size_t>(region)]; }
  HeldCache take_held(int region) { return std::exchange(arena_->held[static_cast<std::size_t>(region)], HeldCache{}); }
  void hold(int region, const HeldCache& c) { arena_->held[static_cast<std::size_t>(region)] = c; }
  std::size_t region_pages() const { return arena_->region_pages; }
  Request* request() { return reinterpret_cast<Request*>(arena_->base); }
  Worker& worker() { return *worker_; }
  // After a call's buffers were read: a large call's pages go back to the
  // system. Shared memory stays resident while it is mapped, so without this
  // every arena kept the largest call it ever ran (two regions of a 36864-
  // token case each): the exhaustive suite over six kernels with --jobs 2
  // held 8.4 GB and was killed for memory, an arena per worker then. The
  // next large call faults its pages in again, little next to judging a
  // case that size.
  // A call over the limit releases its pages from `from` on: a cache it
  // keeps at its start stays (at most kKeepResidentBytes), so a region
  // holds at most a kept cache and one call of up to that size after it.
  void release_large(std::uintptr_t begin, std::uintptr_t end, std::uintptr_t from) {
    if (end - begin <= kKeepResidentBytes || end <= from) return;
    ::madvise(reinterpret_cast<void*>(from), end - from, MADV_REMOVE);
  }
  static constexpr std::uintptr_t kKeepResidentBytes = std::uintptr_t{64} << 20;
  // Ends the worker and lets go of the arena (the thread's arena grew).
  void drop();
  // Whether its arena is its own, so that it may keep a named cos/sin cache
  // between calls (isolated_call.cc).
  bool keeps_caches() const { return domain_ == nullptr; }
  // Which workers of a thread share an arena: those whose kernels' apply
  // lies in the same loaded object (dladdr). None (nullptr: an arena of its
  // own) for a kernel handed a named cos/sin cache (granting COS_SIN_CACHE
  // or CALLER_COS_SIN_CACHE), or whose object cannot be told.
  static const void* sharing_domain(const ropecheck_impl_t* inner);

 private:
  const void* const owner_key_;
  const ropecheck_impl_t* const inner_;
  const double memory_limit_gib_;
  const pid_t owner_;
  const void* const domain_;
  std::shared_ptr<Arena> arena_;  // the arena the worker was started in
  std::unique_ptr<Worker> worker_;
  std::uint64_t applies_ = 0, builds_ = 0;
};

// The calling thread's slot for `owner` (an isolated implementation), made
// on first use to call `inner` under `memory_limit_gib`; a thread keeps at
// most 16, most recently used last.
WorkerSlot& slot_for(const void* owner, const ropecheck_impl_t* inner, double memory_limit_gib);
// Ends the calling thread's workers (retire_workers, isolation.h).
void retire_worker_slots();

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_WORKER_SLOT_H_
