// SPDX-License-Identifier: MIT
// The guarded copies of an isolated call's buffers, placed, filled and checked for damage.
#include "core/isolation/guarded_copies.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <new>

#include "core/cases/buffers.h"

namespace ropecheck {
namespace {

std::size_t body_pages(std::size_t bytes) {
  const std::size_t ps = page_size();
  return bytes == 0 ? 1 : (bytes + ps - 1) / ps;
}

// Mappings of a child per call are reused: a fresh 64 MiB shared mapping
// costs a page fault per page on every call (the cos/sin caches made the
// gate 5x slower). Bodies come in power-of-two page counts; a few of each
// size are kept per thread. A mapping returns here only after its call's
// processes are dead and reaped, and it is handed to no other child
// (map_for_child), so no later call shares memory with a live one.
struct Mapping {
  unsigned char* base = nullptr;
  std::size_t body = 0;  // bytes between the two guard pages
};

std::vector<Mapping>& pool(std::size_t body) {
  static thread_local std::map<std::size_t, std::vector<Mapping>> p;
  return p[body];
}

// Bodies over 64 MiB (the largest cos/sin cache of the standard suites)
// are not kept: they come from the rare long cases, and a pool of them per
// size and thread held gigabytes of shared memory for the rest of a run.
constexpr std::size_t kLargestPooled = std::size_t{64} << 20;

Mapping acquire(std::size_t bytes) {
  const std::size_t ps = page_size();
  std::size_t body = ps;
  while (body < bytes) body *= 2;
  // Not pooled past kLargestPooled: whole pages only, so the slack before
  // the data (canaries, written) stays under a page.
  if (body > kLargestPooled) body = (bytes + ps - 1) / ps * ps;
  auto& free = pool(body);
  if (!free.empty()) {
    Mapping m = free.back();
    free.pop_back();
    return m;
  }
  // Large bodies (a caller's sparse cos/sin cache reserves terabytes) are
  // address space only, their pages allocated when touched.
  Mapping g{static_cast<unsigned char*>(map_for_child(body + 2 * ps, /*lazy=*/body > kLargestPooled)), body};
  ::mprotect(g.base, ps, PROT_NONE);
  ::mprotect(g.base + ps + body, ps, PROT_NONE);
  return g;
}

void release(unsigned char* base, std::size_t body) {
  auto& free = pool(body);
  if (body <= kLargestPooled && free.size() < 4) {
    free.push_back({base, body});
  } else {
    unmap_for_child(base, body + 2 * page_size());
  }
}

// The canary bytes of core/cases/buffers.h (period 2) a page at a time: a byte
// loop over every slack was 2% of a gate run with a worker.
const unsigned char* canary_page() {
  static const auto* page = [] {
    auto* p = new unsigned char[4096];
    fill_canary(p, 4096);
    return p;
  }();
  return page;
}

void fill_canaries(unsigned char* p, std::size_t n) {
  for (std::size_t at = 0; at < n; at += 4096) std::memcpy(p + at, canary_page(), std::min<std::size_t>(4096, n - at));
}

bool canaries_intact(const unsigned char* p, std::size_t n) {
  for (std::size_t at = 0; at < n; at += 4096)
    if (std::memcmp(p + at, canary_page(), std::min<std::size_t>(4096, n - at)) != 0) return false;
  return true;
}

// The first and last 4 KiB of two buffers and 16 spread between them.
bool sampled_pages_equal(const unsigned char* a, const unsigned char* b, std::size_t n) {
  constexpr std::size_t kSpan = 4096, kSamples = 18;
  for (std::size_t i = 0; i < kSamples; ++i) {
    const std::size_t at = n <= kSpan ? 0 : i + 1 == kSamples ? n - kSpan : (n - kSpan) / (kSamples - 1) * i;
    const std::size_t len = std::min(kSpan, n - at);
    if (std::memcmp(a + at, b + at, len) != 0) return false;
  }
  return true;
}

}  // namespace

std::size_t page_size() {
  static const std::size_t p = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return p;
}

GuardedCopies::~GuardedCopies() {
  for (const Copy& c : copies_)
    if (c.pooled) release(c.base, c.body);
}

int GuardedCopies::plan(std::string name, const void* src, std::size_t bytes, bool input) {
  Copy c;
  c.name = std::move(name);
  c.src = src;
  c.bytes = bytes;
  c.input = input;
  copies_.push_back(std::move(c));
  return static_cast<int>(copies_.size() - 1);
}

std::size_t GuardedCopies::pages_of(std::size_t bytes) { return body_pages(bytes) + 2; }

std::size_t GuardedCopies::pages() const {
  std::size_t n = 0;
  for (const Copy& c : copies_) n += pages_of(c.bytes);
  return n;
}

void GuardedCopies::place_in_mappings() {
  const std::size_t ps = page_size();
  for (Copy& c : copies_) {
    const Mapping m = acquire(c.bytes);
    c.base = m.base;
    c.body = m.body;
    c.pooled = true;
    c.slack = m.base + ps;
    c.data = c.slack + m.body - c.bytes;
  }
}

void GuardedCopies::place_in_region(unsigned char* region) {
  const std::size_t ps = page_size();
  unsigned char* at = region;
  for (Copy& c : copies_) {
    c.base = at;
    c.body = body_pages(c.bytes) * ps;
    c.slack = at + ps;
    c.data = c.slack + c.body - c.bytes;
    at = c.slack + c.body + ps;  // past the rear guard
  }
  arm_begin_ = reinterpret_cast<std::uintptr_t>(region);
  arm_end_ = reinterpret_cast<std::uintptr_t>(at);
}

void GuardedCopies::fill() const {
  for (const Copy& c : copies_) {
    if (c.live && !c.kept)  // every byte a zero first: what an earlier call left is gone
      ::madvise(c.slack, c.body, MADV_REMOVE);
    fill_canaries(c.slack, static_cast<std::size_t>(c.data - c.slack));
    if (c.poisoned) {
      fill_canaries(c.data, c.bytes);  // a5 7f a5 7f ...: a NaN in each fp32, fp16 and bf16 entry
    } else if (c.src && c.bytes && !c.kept) {
      if (!c.live) std::memcpy(c.data, c.src, c.bytes);
      else
        for (const auto& [b, e] : *c.live)
          std::memcpy(c.data + b, static_cast<const unsigned char*>(c.src) + b, e - b);
    }
  }
}

std::vector<std::pair<std::uintptr_t, std::uintptr_t>> GuardedCopies::read_only_ranges() const {
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> out;
  for (std::size_t i = 0; i < copies_.size(); ++i)
    if (copies_[i].read_only) out.push_back(body_range(static_cast<int>(i)));
  return out;
}

std::vector<GuardRange> GuardedCopies::guards() const {
  const std::size_t ps = page_size();
  std::vector<GuardRange> g;
  for (const Copy& c : copies_) {
    const auto b = reinterpret_cast<std::uintptr_t>(c.base);
    g.push_back({b, b + ps, "before the start of " + c.name});
    g.push_back({b + ps + c.body, b + 2 * ps + c.body, "past the end of " + c.name});
  }
  return g;
}

std::vector<SharedRange> GuardedCopies::mappings() const {
  std::vector<SharedRange> m;
  for (const Copy& c : copies_)
    if (c.pooled) m.push_back({c.base, c.body + 2 * page_size()});
  return m;
}

std::vector<GuardedCopies::Span> GuardedCopies::spans() const {
  std::vector<Span> out;
  for (const Copy& c : copies_)
    if (!c.read_only) out.push_back({c.slack, static_cast<std::size_t>(c.data + c.bytes - c.slack)});
  return out;
}

std::string GuardedCopies::damage() const {
  for (const Copy& c : copies_) {
    if (c.read_only && c.kept) {
      // The kernel could not write it (a write faults). What is left to
      // catch is ropecheck's own mistake, a source changed under the name
      // its copy was kept by: a sample of its pages, not a proof.
      if (c.src && c.bytes && !sampled_pages_equal(c.data, static_cast<const unsigned char*>(c.src), c.bytes))
        return "was handed a kept " + c.name + " whose source changed under the same name (ropecheck's own error)";
      continue;
    }
    if (c.live) {  // a sparse input: its written ranges (the rest it could not reach unseen: read-only)
      for (const auto& [b, e] : *c.live)
        if (std::memcmp(c.data + b, static_cast<const unsigned char*>(c.src) + b, e - b) != 0)
          return "wrote into its input " + c.name;
      continue;
    }
    if (!canaries_intact(c.slack, static_cast<std::size_t>(c.data - c.slack)))
      return "wrote before the start of " + c.name + " (canary overwritten)";
    if (c.input && c.src && c.bytes && std::memcmp(c.data, c.src, c.bytes) != 0) return "wrote into its input " + c.name;
  }
  return {};
}

}  // namespace ropecheck
