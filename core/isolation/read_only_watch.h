// SPDX-License-Identifier: MIT
// An input read-only to a kernel called in ropecheck's own process
// (--no-isolation, or a kernel the registry keeps in process), as isolation
// makes it in a worker or a child per call (issue #49: a kernel that wrote
// into the caller's cos/sin cache and put it back before returning passed a
// comparison made after the call). The range is PROT_READ while the watch
// lives; a write faults, the fault handler (core/isolation/host_guard.cc)
// makes that page writable again and records the write, and the kernel goes
// on: the call is then named, never the whole run ended. Where no handler
// can be installed (a sanitizer's own), the watch protects nothing and the
// comparison after the call is all that is left.
#ifndef ROPECHECK_CORE_ISOLATION_READ_ONLY_WATCH_H_
#define ROPECHECK_CORE_ISOLATION_READ_ONLY_WATCH_H_

#include <cstddef>
#include <cstdint>

namespace ropecheck {

class ReadOnlyWatch {
 public:
  // [begin, begin + bytes), begin page aligned (a mapping of its own):
  // PROT_READ while the watch lives.
  ReadOnlyWatch(void* begin, std::size_t bytes);
  // The same for a range its owner keeps PROT_READ (a kernel's own cos/sin
  // cache between builds, core/kernel/own_cos_sin_cache.h): registered for
  // the fault handler only, no mprotect either way. A page a write made
  // writable stays so; the owner then stops trusting the range.
  struct AlreadyReadOnly {};
  ReadOnlyWatch(void* begin, std::size_t bytes, AlreadyReadOnly);
  ~ReadOnlyWatch();
  ReadOnlyWatch(const ReadOnlyWatch&) = delete;
  ReadOnlyWatch& operator=(const ReadOnlyWatch&) = delete;
  // Whether the range is read-only while the watch lives (false where
  // watches are not armed, or mprotect or a free slot failed).
  bool armed() const { return slot_ >= 0; }
  // Ends the watch now and says whether the range was written while it
  // lived: the range is dropped from the fault handler first, so a write
  // after this (a thread the code left running) faults as any other
  // instead of being recorded where nobody reads it.
  bool end();

 private:
  bool claim(void* begin, std::size_t bytes);

  int slot_ = -1;
  bool protects_ = true;  // mprotect'ed by this watch (restored when it ends)
};

// For the fault handler (async-signal-safe): when addr lies in a watched
// range, makes its page writable, records the write and returns true.
bool read_only_watch_fault(std::uintptr_t addr);
// Whether a watch made now would protect anything: false under a
// sanitizer, and while ropecheck's fault handler is not the SIGSEGV/SIGBUS
// handler (another installed before it, or after it: asked each time).
bool read_only_watches_armed();

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_READ_ONLY_WATCH_H_
