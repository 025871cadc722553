// SPDX-License-Identifier: MIT
// The isolated table of a kernel (isolate) and the calling thread's
// dealings with isolation: the cos/sin cache it names, its workers.
#include "core/isolation/isolation.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "core/isolation/isolated_apply.h"
#include "core/isolation/isolated_call.h"
#include "core/isolation/worker_slot.h"

namespace ropecheck {
namespace {

std::deque<Isolated>& wrappers() {
  static std::deque<Isolated> w;
  return w;
}

const char* isolated_target(void* ctx) {
  const Isolated& w = *static_cast<const Isolated*>(ctx);
  return w.inner->target ? w.inner->target(w.inner->ctx) : "";
}

}  // namespace

const ropecheck_impl_t* isolate(const ropecheck_impl_t* inner, const IsolationOptions& o) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  Isolated& w = wrappers().emplace_back(Isolated{inner, o, *inner});
  w.table.ctx = &w;
  w.table.apply = isolated_apply;
  w.table.build_cache = inner->build_cache ? isolated_build_cache : nullptr;
  w.table.target = inner->target ? isolated_target : nullptr;
  return &w.table;
}

const ropecheck_impl_t* isolated_inner(const ropecheck_impl_t& impl) {
  return impl.apply == isolated_apply ? static_cast<const Isolated*>(impl.ctx)->inner : nullptr;
}

void name_cache_contents(const void* data, std::uint64_t generation,
                         const std::vector<std::pair<std::size_t, std::size_t>>* live) {
  thread_named_cache() = {data, generation, live};
}

std::uint64_t new_cache_generation() {
  static std::atomic<std::uint64_t> generations{0};
  return ++generations;
}

void retire_workers() { retire_worker_slots(); }

const char* isolation_mode_name(IsolationMode m) { return m == IsolationMode::kFork ? "fork" : "worker"; }

}  // namespace ropecheck
