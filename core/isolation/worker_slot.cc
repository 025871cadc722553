#include "core/isolation/worker_slot.h"

#include <algorithm>
#include <new>
#include <vector>

#include "core/isolation/child_process.h"
#include "core/isolation/guarded_copies.h"

namespace ropecheck {

int serve(const ropecheck_impl_t& in, Request& r, char* e, std::size_t n) {
  if (r.apply && r.timed) return run_timed(in, r.params, e, n, &r.timing, /*own_process=*/true);
  if (r.apply) return in.apply(in.ctx, r.params, e, n);
  return in.build_cache(in.ctx, r.freq, r.rotary_dim, r.rows, r.dtype, r.out, e, n);
}

unsigned char* WorkerSlot::region_for(std::size_t pages, bool apply, int* index) {
  if (pages > region_pages_) grow(pages);
  const std::uint64_t k = apply ? applies_++ : builds_++;
  *index = static_cast<int>(k % 2);
  return region_start(*index);
}

unsigned char* WorkerSlot::region_start(int index) const {
  return arena_ + page_size() * (1 + static_cast<std::size_t>(index) * region_pages_);
}

std::size_t WorkerSlot::bytes() const { return page_size() * (1 + 2 * region_pages_); }

void WorkerSlot::drop() {
  held_ = {};
  worker_.reset();
  if (arena_) unmap_for_child(arena_, bytes());
  arena_ = nullptr;
}

void WorkerSlot::grow(std::size_t pages) {
  drop();
  const std::size_t first = (std::size_t{256} << 20) / page_size();
  std::size_t fit = 16;
  while (fit < pages) fit *= 2;
  region_pages_ = std::max(fit, first);
  try {
    arena_ = static_cast<unsigned char*>(map_for_child(bytes(), /*lazy=*/true));
  } catch (const std::bad_alloc&) {  // strict overcommit: only what this call needs
    region_pages_ = fit;
    arena_ = static_cast<unsigned char*>(map_for_child(bytes(), /*lazy=*/true));
  }
  const ropecheck_impl_t* in = inner_;
  Request* r = request();
  worker_ = std::make_unique<Worker>(std::vector<SharedRange>{{arena_, bytes()}}, memory_limit_gib_,
                                     [in, r](char* e, std::size_t n) { return serve(*in, *r, e, n); });
}

// This thread's workers, most recently used last. A gate thread's workers
// end with the thread; a run's end retires them (retire_workers).
namespace {
constexpr std::size_t kMaxWorkersPerThread = 16;
thread_local std::vector<std::unique_ptr<WorkerSlot>> t_slots;
}  // namespace

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

void retire_worker_slots() { t_slots.clear(); }

}  // namespace ropecheck
