// SPDX-License-Identifier: MIT
// The in-process read-only watches and their part of the fault handler.
#include "core/isolation/read_only_watch.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>

#include "core/isolation/host_guard.h"

namespace ropecheck {
namespace {

// One slot per live watch (one per gate thread at most); the fault handler
// reads them without a lock.
constexpr int kWatches = 256;
struct Watch {
  std::atomic<std::uintptr_t> begin{0}, end{0};
  std::atomic<bool> written{false};
  std::atomic<bool> used{false};
};
Watch g_watches[kWatches];

std::uintptr_t page() { return static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE)); }

}  // namespace

bool ReadOnlyWatch::claim(void* begin, std::size_t bytes) {
  if (!read_only_watches_armed() || bytes == 0) return false;
  for (int i = 0; i < kWatches; ++i) {
    bool expected = false;
    if (!g_watches[i].used.compare_exchange_strong(expected, true)) continue;
    Watch& w = g_watches[i];
    const auto b = reinterpret_cast<std::uintptr_t>(begin);
    w.written = false;
    w.begin = b;
    w.end = b + bytes;
    slot_ = i;
    return true;
  }
  return false;
}

ReadOnlyWatch::ReadOnlyWatch(void* begin, std::size_t bytes) {
  if (!claim(begin, bytes)) return;
  if (::mprotect(begin, bytes, PROT_READ) != 0) {  // unprotected: the comparison after the call remains
    Watch& w = g_watches[slot_];
    w.begin = w.end = 0;
    w.used = false;
    slot_ = -1;
  }
}

ReadOnlyWatch::ReadOnlyWatch(void* begin, std::size_t bytes, AlreadyReadOnly) : protects_(false) {
  claim(begin, bytes);
}

ReadOnlyWatch::~ReadOnlyWatch() { end(); }

bool ReadOnlyWatch::end() {
  if (slot_ < 0) return false;
  Watch& w = g_watches[slot_];
  const std::uintptr_t b = w.begin, e = w.end;
  w.begin = w.end = 0;
  const bool was_written = w.written;
  if (protects_) ::mprotect(reinterpret_cast<void*>(b), e - b, PROT_READ | PROT_WRITE);
  w.used = false;
  slot_ = -1;
  return was_written;
}

bool read_only_watch_fault(std::uintptr_t addr) {
  for (Watch& w : g_watches) {
    const std::uintptr_t b = w.begin, e = w.end;
    if (addr < b || addr >= e) continue;
    w.written = true;
    const std::uintptr_t p = addr & ~(page() - 1);
    return ::mprotect(reinterpret_cast<void*>(p), page(), PROT_READ | PROT_WRITE) == 0;
  }
  return false;
}

bool read_only_watches_armed() { return host_fault_handler_in_place(); }

}  // namespace ropecheck
