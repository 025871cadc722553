// SPDX-License-Identifier: MIT
// One isolated call placed and run (IsolatedCall), in a worker's arena or a
// child of its own, and the cos/sin cache the calling thread named.
#include "core/isolation/isolated_call.h"

#include <algorithm>
#include <utility>

namespace ropecheck {
namespace {

// --timeout is per 2^24 elements a call computes, at least once: a fixed
// limit would fail a correct but slow kernel (a debug build, an interpreter)
// on the long cases only, and only on a loaded machine. A hang is still
// caught, a little later on a large case.
constexpr double kTimeoutElements = 16777216.0;
double call_timeout(double seconds, double elements) {
  return seconds * std::max(1.0, elements / kTimeoutElements);
}

thread_local NamedCache t_named_cache;

}  // namespace

NamedCache& thread_named_cache() { return t_named_cache; }

IsolatedCall::IsolatedCall(const Isolated& w, GuardedCopies& b, bool apply, const HeldCache& named) : w_(w), b_(b) {
  if (w.options.mode != IsolationMode::kWorker) {
    b.place_in_mappings();
    return;
  }
  slot_ = &slot_for(&w, w.inner, w.options.memory_limit_gib);
  unsigned char* region = slot_->region_for(b.pages(), apply, &region_);
  const HeldCache& held = slot_->held(region_);
  const std::size_t skip = GuardedCopies::pages_of(held.bytes);
  if (held.generation != 0 && held.generation == named.generation && held.bytes != named.bytes &&
      skip + b.pages() <= slot_->region_pages()) {
    // The same cache, fewer or more rows (a derived case: positions
    // shifted, one token alone, a row short): placed after the kept
    // one, which the next call of the usual rows finds where it was.
    b.place_in_region(region + skip * page_size());
  } else {
    b.place_in_region(region);
    held_ = slot_->take_held(region_);
    at_start_ = true;
  }
}

ChildRun IsolatedCall::run(const Request& r, double elements, std::function<void()> decoy) {
  ChildOptions o;
  o.timeout_seconds = call_timeout(w_.options.timeout_seconds, elements * (decoy ? 2 : 1));
  o.memory_limit_gib = w_.options.memory_limit_gib;
  o.guards = b_.guards();
  // Read-only for the call: its own cos/sin cache (an input), and in a
  // worker the caches its arena keeps (this region's, the other's).
  int ro = 0;
  const auto read_only = [&](std::pair<std::uintptr_t, std::uintptr_t> r, const char* name) {
    for (int i = 0; i < ro; ++i)
      if (o.read_only_begin[i] == r.first && o.read_only_end[i] == r.second) return;
    if (r.second <= r.first || ro == ChildOptions::kReadOnlyRanges) return;
    o.read_only_begin[ro] = r.first;
    o.read_only_end[ro] = r.second;
    o.read_only_names[ro++] = name;
  };
  for (const auto& r : b_.read_only_ranges()) read_only(r, "its input cos_sin_cache (read-only for the call)");
  if (!slot_) {
    o.share = b_.mappings();
    o.decoy = std::move(decoy);
    // The child's request is its own copy: a timing it writes stays there.
    return run_in_child(o, [&](char* e, std::size_t n) {
      Request own = r;
      return serve(*w_.inner, own, e, n);
    });
  }
  *slot_->request() = r;
  o.arm_begin = b_.arm_begin() + arm_skip_;
  o.arm_end = b_.arm_end();
  // Every cache the arena keeps is read-only in the worker, this call's
  // and the other region's: proven unchanged when its call placed it,
  // nothing can write it since (a stray write faults at once).
  read_only(read_only_, "its input cos_sin_cache (a cos/sin cache its worker keeps, read-only)");
  for (int region = 0; region < 2; ++region)
    if (const HeldCache& h = slot_->held(region); h.generation != 0) {
      const auto start = reinterpret_cast<std::uintptr_t>(slot_->region_start(region)) + page_size();
      read_only({start, start + (GuardedCopies::pages_of(h.bytes) - 2) * page_size()},
                "a cos/sin cache its worker keeps (another call's input, read-only)");
    }
  return slot_->worker().call(o);
}

IsolatedCall::~IsolatedCall() {
  if (!slot_) return;
  const bool keep = kept_.generation != 0 && kept_.bytes <= WorkerSlot::kKeepResidentBytes;
  const std::uintptr_t from = b_.arm_begin() + (keep ? GuardedCopies::pages_of(kept_.bytes) * page_size() : 0);
  slot_->release_large(b_.arm_begin(), b_.arm_end(), from);
  if (keep) slot_->hold(region_, kept_);
}

}  // namespace ropecheck
