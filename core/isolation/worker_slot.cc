// SPDX-License-Identifier: MIT
// A worker per isolated implementation and thread, with the arena it shares with ropecheck.
#include "core/isolation/worker_slot.h"

#include <dlfcn.h>

#include <algorithm>
#include <new>
#include <vector>

#include "core/isolation/child_process.h"
#include "core/isolation/guarded_copies.h"

namespace ropecheck {

int serve(const ropecheck_impl_t& in, Request& r, char* e, std::size_t n) {
  if (r.apply && r.timed) return run_timed(in, r.params, {e, n}, &r.timing, /*own_process=*/true);
  if (r.apply) return in.apply(in.ctx, r.params, e, n);
  return in.build_cache(in.ctx, r.freq, r.rotary_dim, r.rows, r.dtype, r.out, e, n);
}

// This thread's workers, most recently used last, and the arena they share.
// A gate thread's workers end with the thread; a run's end retires them
// (retire_workers).
namespace {
constexpr std::size_t kMaxWorkersPerThread = 16;
thread_local std::vector<std::unique_ptr<WorkerSlot>> t_slots;
// The arena of each sharing domain (WorkerSlot::sharing_domain).
thread_local std::vector<std::pair<const void*, std::shared_ptr<Arena>>> t_arenas;

// A new arena, its regions `pages` long at least. A new arena means new
// workers: a fork() of ropecheck, whose pages are then each copied at their
// next write here. So the first arena holds the calls of the standard
// suites at once (a 64 MiB cos/sin cache with its q and k): address space
// only, its pages allocated when touched (MAP_NORESERVE). A call that needs
// more gets an arena of twice that.
std::shared_ptr<Arena> new_arena(std::size_t pages) {
  const std::size_t first = (std::size_t{256} << 20) / page_size();
  std::size_t fit = 16;
  while (fit < pages) fit *= 2;
  try {
    return std::make_shared<Arena>(std::max(fit, first));
  } catch (const std::bad_alloc&) {  // strict overcommit: only what this call needs
    return std::make_shared<Arena>(fit);
  }
}
}  // namespace

Arena::Arena(std::size_t pages) : region_pages(pages), owner(::getpid()) {
  base = static_cast<unsigned char*>(map_for_child(bytes(), /*lazy=*/true));
}

Arena::~Arena() {
  if (::getpid() == owner) unmap_for_child(base, bytes());
}

std::size_t Arena::bytes() const { return page_size() * (1 + 2 * region_pages); }

unsigned char* WorkerSlot::region_for(std::size_t pages, bool apply, int* index) {
  if (domain_ == nullptr) {
    if (!arena_ || pages > arena_->region_pages) {
      drop();
      arena_ = new_arena(pages);
    }
  } else {
    auto it = std::find_if(t_arenas.begin(), t_arenas.end(), [&](const auto& a) { return a.first == domain_; });
    if (it == t_arenas.end()) it = t_arenas.insert(t_arenas.end(), {domain_, nullptr});
    if (!it->second || pages > it->second->region_pages) {
      // Every worker of the domain's arena ends first: none keeps the old
      // arena's pages.
      for (const auto& s : t_slots)
        if (s->domain_ == domain_) s->drop();
      it->second.reset();
      it->second = new_arena(pages);
    }
    if (arena_ != it->second) {
      drop();
      arena_ = it->second;
    }
  }
  if (!worker_) {
    const ropecheck_impl_t* in = inner_;
    Request* r = request();
    worker_ = std::make_unique<Worker>(std::vector<SharedRange>{{arena_->base, arena_->bytes()}}, memory_limit_gib_,
                                       [in, r](char* e, std::size_t n) { return serve(*in, *r, e, n); });
  }
  const std::uint64_t k = apply ? applies_++ : builds_++;
  *index = static_cast<int>(k % 2);
  return region_start(*index);
}

const void* WorkerSlot::sharing_domain(const ropecheck_impl_t* inner) {
  if (inner->caps.flags & (ROPECHECK_CAP_COS_SIN_CACHE | ROPECHECK_CAP_CALLER_COS_SIN_CACHE)) return nullptr;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(inner->apply), &info) == 0 || info.dli_fbase == nullptr) return nullptr;
  return info.dli_fbase;
}

unsigned char* WorkerSlot::region_start(int index) const {
  return arena_->base + page_size() * (1 + static_cast<std::size_t>(index) * arena_->region_pages);
}

void WorkerSlot::drop() {
  worker_.reset();
  arena_.reset();
}

WorkerSlot& slot_for(const void* owner, const ropecheck_impl_t* inner, double memory_limit_gib) {
  auto it = std::find_if(t_slots.begin(), t_slots.end(), [&](const auto& s) { return s->owner() == owner; });
  std::unique_ptr<WorkerSlot> s;
  if (it != t_slots.end()) {
    s = std::move(*it);
    t_slots.erase(it);
  } else {
    if (t_slots.size() >= kMaxWorkersPerThread) t_slots.erase(t_slots.begin());
    s = std::make_unique<WorkerSlot>(owner, inner, memory_limit_gib);
  }
  t_slots.push_back(std::move(s));
  return *t_slots.back();
}

void retire_worker_slots() {
  t_slots.clear();
  t_arenas.clear();
}

}  // namespace ropecheck
