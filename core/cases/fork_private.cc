// SPDX-License-Identifier: MIT
// Large buffers no forked process inherits.
#include "core/cases/fork_private.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>
#include <vector>

namespace ropecheck {
namespace {

std::size_t mapping_bytes(std::size_t bytes) {
  static const auto ps = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + ps - 1) / ps * ps;
}

// Mappings freed on this thread, kept for the next buffer: a case's calls
// allocate the same sizes again and again (outputs, what they held before
// the call, derived inputs), and a fresh mapping costs a page fault and a
// cleared page for every page touched. The smallest that holds a request
// serves it, its tail unmapped: with exact sizes only, 8 entries and 128
// MiB, the quick gate still faulted 0.8 GB of fresh pages in here (0.2 M
// faults of 0.9 M, about 0.8 s of system time). 32 at most, 256 MiB per
// thread; they stay MADV_DONTFORK.
// Only the process that mapped them uses them: a forked child inherits
// this list but not the mappings.
struct Pool {
  struct Entry {
    void* p;
    std::size_t bytes;
  };
  static constexpr std::size_t kMaxBytes = std::size_t{256} << 20, kMaxEntries = 32;
  pid_t owner = ::getpid();
  std::vector<Entry> free;  // most recently freed last
  std::size_t held = 0;
  ~Pool() {
    if (::getpid() == owner)
      for (const Entry& e : free) ::munmap(e.p, e.bytes);
    gone = true;
  }
  static thread_local bool gone;  // buffers freed after the pool (thread_local destructors) are unmapped
};
thread_local bool Pool::gone = false;
thread_local Pool t_pool;

}  // namespace

void* fork_private_allocate(std::size_t bytes) {
  if (bytes < kForkPrivateBytes) return ::operator new(bytes);
  const std::size_t m = mapping_bytes(bytes);
  if (!Pool::gone && t_pool.owner == ::getpid()) {
    auto best = t_pool.free.end();
    for (auto it = t_pool.free.begin(); it != t_pool.free.end(); ++it)
      if (it->bytes >= m && (best == t_pool.free.end() || it->bytes < best->bytes)) best = it;
    if (best != t_pool.free.end()) {
      void* p = best->p;
      const std::size_t have = best->bytes;
      t_pool.held -= have;
      t_pool.free.erase(best);
      if (have > m) ::munmap(static_cast<char*>(p) + m, have - m);
      return p;
    }
  }
  void* p = ::mmap(nullptr, m, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  ::madvise(p, m, MADV_DONTFORK);  // where it fails, the buffer is inherited as before
  return p;
}

void fork_private_free(void* p, std::size_t bytes) {
  if (!p) return;
  if (bytes < kForkPrivateBytes) {
    ::operator delete(p);
    return;
  }
  const std::size_t m = mapping_bytes(bytes);
  if (Pool::gone || t_pool.owner != ::getpid() || m > Pool::kMaxBytes) {
    ::munmap(p, m);
    return;
  }
  while (!t_pool.free.empty() && (t_pool.held + m > Pool::kMaxBytes || t_pool.free.size() >= Pool::kMaxEntries)) {
    ::munmap(t_pool.free.front().p, t_pool.free.front().bytes);
    t_pool.held -= t_pool.free.front().bytes;
    t_pool.free.erase(t_pool.free.begin());
  }
  t_pool.free.push_back({p, m});
  t_pool.held += m;
}

}  // namespace ropecheck
