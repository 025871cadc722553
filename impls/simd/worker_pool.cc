// SPDX-License-Identifier: MIT
// The definitions of impls/simd/worker_pool.h.
#include "impls/simd/worker_pool.h"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace ropecheck::impl {
namespace {

// How long a worker (and a waiting caller) spins before it sleeps in the
// kernel: long enough to bridge the gap between back-to-back calls (a decode
// loop, a benchmark), short enough to cost nothing measurable when idle.
constexpr auto kSpinFor = std::chrono::microseconds(50);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Waits until a.load() != old: spins for kSpinFor, then sleeps (a futex in
// libstdc++'s atomic wait). Returns the new value.
std::uint64_t wait_change(const std::atomic<std::uint64_t>& a, std::uint64_t old) {
  std::uint64_t v = a.load(std::memory_order_acquire);
  const auto until = std::chrono::steady_clock::now() + kSpinFor;
  for (int i = 0; v == old; ++i) {
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) break;
    cpu_relax();
    v = a.load(std::memory_order_acquire);
  }
  while (v == old) {
    a.wait(old, std::memory_order_acquire);
    v = a.load(std::memory_order_acquire);
  }
  return v;
}

// One worker's mailbox, on its own cache lines: the caller writes task and
// index, then publishes the generation in `go`; the worker answers in `done`.
struct alignas(64) Slot {
  std::atomic<std::uint64_t> go{0};
  alignas(64) std::atomic<std::uint64_t> done{0};
  const std::function<void(int)>* task = nullptr;
  int index = 0;
};

void worker_loop(Slot* s) {
  std::uint64_t seen = 0;
  for (;;) {
    seen = wait_change(s->go, seen);
    (*s->task)(s->index);
    s->done.store(seen, std::memory_order_release);
    s->done.notify_one();
  }
}

struct Pool {
  std::mutex busy;          // one caller at a time
  std::deque<Slot> slots;   // stable addresses as workers are added
  std::uint64_t generation = 0;

  void ensure(int workers) {
    while (static_cast<int>(slots.size()) < workers) {
      Slot* s = &slots.emplace_back();
      std::thread(worker_loop, s).detach();  // waits for work until the process ends
    }
  }
};

// The process's pool, never touched in a child after fork(): the child has
// none of its parent's workers, and the mutex may have been copied locked.
// Never destroyed: its workers wait on its slots until the process ends.
Pool& pool() {
  static Pool* const p = new Pool;
  return *p;
}

// Set in a child after fork(). A forked child is where ropecheck isolates a
// call (core/isolation/isolation.h), and there a thread still running when apply
// returns fails the call (docs/RELIABILITY.md): a child starts its workers
// per call and joins them before returning, with the same tasks on the same
// rows, so the bits are those of the persistent workers.
std::atomic<bool> g_forked{false};
[[maybe_unused]] const int g_atfork = pthread_atfork(nullptr, nullptr, [] { g_forked.store(true); });

void run_joined(int n, const std::function<void(int)>& task) {
  std::vector<std::thread> workers;
  workers.reserve(static_cast<std::size_t>(n - 1));
  for (int i = 1; i < n; ++i) workers.emplace_back([&task, i] { task(i); });
  task(0);
  for (std::thread& t : workers) t.join();
}

}  // namespace

void run_parallel(int n, const std::function<void(int)>& task) {
  if (n <= 1) {
    if (n == 1) task(0);
    return;
  }
  if (g_forked.load()) return run_joined(n, task);
  Pool& p = pool();
  std::unique_lock<std::mutex> lock(p.busy, std::try_to_lock);
  if (!lock.owns_lock()) {  // another caller has the workers: same tasks, in turn
    for (int i = 0; i < n; ++i) task(i);
    return;
  }
  p.ensure(n - 1);
  const std::uint64_t g = ++p.generation;
  for (int i = 1; i < n; ++i) {
    Slot& s = p.slots[static_cast<std::size_t>(i - 1)];
    s.task = &task;
    s.index = i;
    s.go.store(g, std::memory_order_release);
    s.go.notify_one();
  }
  task(0);
  for (int i = 1; i < n; ++i) {
    const Slot& s = p.slots[static_cast<std::size_t>(i - 1)];
    std::uint64_t d = s.done.load(std::memory_order_acquire);
    while (d != g) d = wait_change(s.done, d);
  }
}

}  // namespace ropecheck::impl
