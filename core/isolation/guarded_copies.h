// SPDX-License-Identifier: MIT
// The buffers of one isolated kernel call (core/isolation/isolation.h): copies in
// shared memory, each between two PROT_NONE guard pages, its last byte
// against the rear one and the slack before it filled with canaries. A fault
// in a guard page is named by its buffer ("past the end of q_out"); a write
// into the slack or into an input is found afterwards (damage()). Placed
// either in mappings of their own (a child per call: the guards are armed
// here and inherited) or one after the other in a region of a worker's
// arena (the worker arms the guards itself before the call, core/isolation/worker.h).
#ifndef ROPECHECK_CORE_ISOLATION_GUARDED_COPIES_H_
#define ROPECHECK_CORE_ISOLATION_GUARDED_COPIES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/isolation/child_process.h"

namespace ropecheck {

std::size_t page_size();

class GuardedCopies {
 public:
  GuardedCopies() = default;
  ~GuardedCopies();
  GuardedCopies(const GuardedCopies&) = delete;
  GuardedCopies& operator=(const GuardedCopies&) = delete;

  // One buffer of `bytes` bytes; returns its index. fill() copies `src` into
  // it (nothing when null); an input is proven unchanged against `src`
  // afterwards, so src must stay alive and unchanged until damage().
  int plan(std::string name, const void* src, std::size_t bytes, bool input);
  // Pages the planned buffers take one after the other, guards included.
  std::size_t pages() const;
  // Pages one buffer of `bytes` takes, its two guards included.
  static std::size_t pages_of(std::size_t bytes);
  // A mapping of its own per buffer (from a pool, reused), guards armed.
  void place_in_mappings();
  // One after the other from `region` (pages() pages, page aligned); the
  // guards are left for the worker to arm, over [region, arm_end()).
  void place_in_region(unsigned char* region);
  unsigned char* data(int i) const { return copies_[static_cast<std::size_t>(i)].data; }
  // Copy i already holds its source's bytes where it was placed (a worker's
  // region kept them from an earlier call, core/isolation/isolated_call.cc):
  // fill() leaves them. damage() still proves them unchanged, unless
  // `read_only`: the worker holds its pages (body_range()) read-only for
  // the call (ChildOptions::read_only_begin), so a write faults instead.
  void keep(int i, bool read_only = false) {
    copies_[static_cast<std::size_t>(i)].kept = true;
    copies_[static_cast<std::size_t>(i)].read_only = read_only;
  }
  // Copy i (an input) is read-only to the kernel for the call
  // (read_only_ranges(), ChildOptions::read_only_begin): a write faults in
  // the call that makes it, even one the kernel undoes before returning.
  // damage() still compares it with its source, as it compares an input.
  void protect(int i) { copies_[static_cast<std::size_t>(i)].read_only = true; }
  // Copy i's source holds bytes only in `live` (byte ranges of it,
  // ascending, page aligned in the source) and reads as zeros elsewhere (a
  // cos/sin cache of the caller's, core/kernel/caller_cos_sin_cache.h):
  // fill() copies those alone into a body it empties first, and damage()
  // compares those alone. `live` must outlive the copies.
  void sparse(int i, const std::vector<std::pair<std::size_t, std::size_t>>* live) {
    copies_[static_cast<std::size_t>(i)].live = live;
  }
  // The bodies of the read-only copies (protect(), keep(i, true)).
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> read_only_ranges() const;
  // Copy i is an output the call must write whole (a cos/sin cache it
  // builds): fill() writes NaN canaries into it instead of copying a
  // source, so an entry left unwritten reads as NaN.
  void poison(int i) { copies_[static_cast<std::size_t>(i)].poisoned = true; }
  // The pages between copy i's guards (its slack and data), page aligned.
  std::pair<std::uintptr_t, std::uintptr_t> body_range(int i) const {
    const Copy& c = copies_[static_cast<std::size_t>(i)];
    const auto b = reinterpret_cast<std::uintptr_t>(c.slack);
    return {b, b + c.body};
  }
  // Canaries in every slack and every poisoned copy, every source copied in.
  void fill() const;
  std::vector<GuardRange> guards() const;
  std::vector<SharedRange> mappings() const;  // place_in_mappings() only
  std::uintptr_t arm_begin() const { return arm_begin_; }
  std::uintptr_t arm_end() const { return arm_end_; }
  // Every buffer's bytes between its guards (slack and data) but the
  // read-only ones (nothing writes those), for a caller that must put them
  // back exactly as they are (a decoy call's, isolation).
  struct Span {
    unsigned char* at;
    std::size_t bytes;
  };
  std::vector<Span> spans() const;
  // Empty when nothing the kernel may not touch changed, else what did.
  std::string damage() const;

 private:
  struct Copy {
    std::string name;
    const void* src = nullptr;
    std::size_t bytes = 0;
    bool input = false;
    unsigned char* slack = nullptr;  // first byte after the front guard
    unsigned char* data = nullptr;   // slack + the slack's size; data + bytes is the rear guard
    unsigned char* base = nullptr;   // the front guard
    std::size_t body = 0;            // bytes between the two guards
    bool pooled = false;             // a mapping of its own, back to the pool when done
    bool kept = false;               // holds src's bytes already (keep())
    bool read_only = false;          // the kernel cannot write them (keep(), protect())
    bool poisoned = false;           // filled with canaries, not src (poison())
    const std::vector<std::pair<std::size_t, std::size_t>>* live = nullptr;  // sparse()
  };
  std::vector<Copy> copies_;
  std::uintptr_t arm_begin_ = 0, arm_end_ = 0;
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_ISOLATION_GUARDED_COPIES_H_
