// SPDX-License-Identifier: MIT
// A worker call's guard pages and read-only ranges, set as the difference from its last call's.
#include "core/isolation/arena_protections.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace ropecheck {
namespace {

// What this worker set on its arena other than read-write: guard pages
// (PROT_NONE) and read-only ranges, as the calls that set them laid them
// out. A call's layout is applied as its difference from these: most calls
// repeat the layout of the call before them in the same region (the
// properties call a kernel on one case again and again), and making the
// whole range read-write and then each guard page PROT_NONE again on every
// call split and merged the arena's mappings and walked every page of it,
// 7% of a quick gate's time (0.12 M mprotect() calls). Only what this
// worker set is known here: a kernel that changes the protection of its
// own arena keeps that change for its own later calls (docs/RELIABILITY.md).
struct Protection {
  std::uintptr_t begin = 0, end = 0;
  int prot = PROT_NONE;
  bool operator==(const Protection&) const = default;
};
constexpr int kMaxProtections = 4 * (kMaxGuards + ChildOptions::kReadOnlyRanges);
Protection g_protections[kMaxProtections];
int g_protection_count = 0;

bool overlaps(const Protection& a, std::uintptr_t b, std::uintptr_t e) { return a.begin < e && b < a.end; }

// The call's layout: its guard pages (adjacent ones together) and its
// read-only ranges; errno (EINVAL for a range not page aligned) or 0.
int wanted_layout(const ChildShared* s, std::size_t ps, Protection* want, int* n_want) {
  int n = 0;
  if (s->arm_end > s->arm_begin) {
    const int guards = s->guards < kMaxGuards ? s->guards : kMaxGuards;
    for (int i = 0; i < guards;) {
      std::uintptr_t b = s->guard_begin[i], e = s->guard_end[i];
      for (++i; i < guards && s->guard_begin[i] == e; ++i) e = s->guard_end[i];
      if (b % ps != 0 || e <= b) return EINVAL;
      want[n++] = {b, e, PROT_NONE};
    }
  }
  for (int i = 0; i < ChildOptions::kReadOnlyRanges; ++i) {
    const std::uintptr_t b = s->read_only_begin[i], e = s->read_only_end[i];
    if (e <= b) continue;
    if ((b | e) % ps != 0) return EINVAL;
    want[n++] = {b, e, PROT_READ};
  }
  *n_want = n;
  return 0;
}

}  // namespace

// Within [arm_begin, arm_end) every page read-write but the guard pages and
// the read-only ranges, which may lie outside it too (a kept cache).
// Protections set for an earlier call that this one does not want, where
// they overlap its range or its wanted ranges, become read-write again;
// those it wants again stay.
int arm_layout(const ChildShared* s) {
  const std::size_t ps = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  Protection want[kMaxGuards + ChildOptions::kReadOnlyRanges];
  int n_want = 0;
  if (const int err = wanted_layout(s, ps, want, &n_want)) return err;
  bool have[kMaxGuards + ChildOptions::kReadOnlyRanges] = {};
  int kept = 0;
  for (int i = 0; i < g_protection_count; ++i) {
    const Protection& p = g_protections[i];
    bool wanted = false, in_the_way = overlaps(p, s->arm_begin, s->arm_end);
    for (int j = 0; j < n_want; ++j) {
      if (p == want[j]) wanted = have[j] = true;
      else if (overlaps(p, want[j].begin, want[j].end)) in_the_way = true;
    }
    if (wanted || !in_the_way) {
      g_protections[kept++] = p;
      continue;
    }
    if (::mprotect(reinterpret_cast<void*>(p.begin), p.end - p.begin, PROT_READ | PROT_WRITE) != 0) {
      g_protection_count = 0;  // the call fails, and its worker is replaced
      return errno;
    }
  }
  g_protection_count = kept;
  for (int j = 0; j < n_want; ++j) {
    if (have[j]) continue;
    if (g_protection_count == kMaxProtections) {
      // Full (never with two regions' layouts): what this call does not
      // want goes back to read-write and is forgotten.
      int k = 0;
      for (int i = 0; i < g_protection_count; ++i) {
        const Protection& p = g_protections[i];
        bool wanted = false;
        for (int w = 0; w < n_want; ++w) wanted = wanted || p == want[w];
        if (wanted) {
          g_protections[k++] = p;
        } else if (::mprotect(reinterpret_cast<void*>(p.begin), p.end - p.begin, PROT_READ | PROT_WRITE) != 0) {
          g_protection_count = 0;
          return errno;
        }
      }
      g_protection_count = k;
    }
    if (::mprotect(reinterpret_cast<void*>(want[j].begin), want[j].end - want[j].begin, want[j].prot) != 0)
      return errno;
    g_protections[g_protection_count++] = want[j];
  }
  return 0;
}

}  // namespace ropecheck
