// SPDX-License-Identifier: MIT
// The cos/sin cache a kernel builds for itself with its build_cache, kept between calls.
#include "core/kernel/own_cos_sin_cache.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/fork_private.h"
#include "core/isolation/isolation.h"
#include "core/isolation/read_only_watch.h"
#include "core/kernel/caller_cos_sin_cache.h"
#include "core/kernel/declared_capabilities.h"

namespace ropecheck {
namespace {

// The last cos/sin cache this thread built, per implementation and spec:
// every property calls a cache kernel on the same case or on one with
// shifted positions, and building the cache (up to 2^24 sin/cos pairs,
// through a forked child when isolated) was most of a gate run. Row p of a
// cache holds position p (kernel_abi.h), so a cache of fewer rows is the
// first rows of a longer one; a longer one is built when asked for. No
// call can change it for another: isolated, each gets a copy proven
// unchanged; in process, the memo itself, read-only, a write named and the
// memo built again (OwnCachePart, core/kernel/call_parts/fused_parts.h).
struct CacheMemo {
  // The builder: its function and context (a table's address alone could
  // be reused by another table).
  decltype(ropecheck_impl_t::build_cache) build = nullptr;
  void* ctx = nullptr;
  std::string key;
  std::int64_t rows = 0;
  std::vector<float, ForkPrivateAllocator<float>> cache;  // up to 64 MiB per thread
  // Names these bytes for isolation (name_cache_contents): new with every
  // build, so a worker keeps a cache only while it is this one.
  std::uint64_t generation = 0;
  // Its table's pages are PROT_READ between in-process builds
  // (read_only_bytes, 0 while writable): an in-process call is handed the
  // memo under a ReadOnlyWatch that only registers them, no mprotect per
  // call (two per call over up to 64 MiB were 8% of an in-process gate
  // run). A write outside a call (a thread a kernel left running) faults
  // with no watch to name it: the run ends with SIGSEGV.
  std::size_t read_only_bytes = 0;
  ~CacheMemo() { make_writable(); }  // before its pages go back to the allocator's pool

  void make_writable() {
    if (read_only_bytes) ::mprotect(cache.data(), read_only_bytes, PROT_READ | PROT_WRITE);
    read_only_bytes = 0;
  }
  // The table's pages (from cache.data(), page aligned, to its last entry's
  // page), only in a mapping of its own (kForkPrivateBytes and more: no
  // other object on its pages), and only where a watch can name a write
  // into them (ropecheck's fault handler in place: not in an
  // AddressSanitizer build, nor while a host's own handler is installed).
  void make_read_only() {
    static const auto ps = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t bytes = (cache.size() * sizeof(float) + ps - 1) / ps * ps;
    if (cache.capacity() * sizeof(float) >= kForkPrivateBytes && read_only_watches_armed() &&
        ::mprotect(cache.data(), bytes, PROT_READ) == 0)
      read_only_bytes = bytes;
  }
};
thread_local CacheMemo t_cache_memo;

std::atomic<bool> g_spare_rows{true};

}  // namespace

void set_own_cache_spare_rows(bool on) { g_spare_rows = on; }

void forget_own_cos_sin_cache() {
  t_cache_memo.build = nullptr;
  t_cache_memo.make_writable();  // a page a watch saw written is writable already: all of them, then
}

OwnCosSinCache own_cos_sin_cache(const ropecheck_impl_t& impl, const CacheWanted& want, const FpControl& fp_before,
                                 KernelRun* r) {
  const ropecheck_freq_spec_t& freq = want.freq;
  const int rotary_dim = want.rotary_dim;
  const std::int64_t rows = want.rows;
  std::string key = freq_cache_key(freq, rotary_dim);
  CacheMemo& memo = t_cache_memo;
  // The builder is the kernel's own, isolated or not (isolation only moves
  // where it runs): kernels sharing one builder share its caches either way.
  const ropecheck_impl_t* const inner = isolated_inner(impl);
  const ropecheck_impl_t& builder = inner ? *inner : impl;
  if (memo.build != builder.build_cache || memo.ctx != builder.ctx || memo.key != key || memo.rows < rows) {
    memo.build = nullptr;  // invalid until built
    // Rows to spare for the shifted positions the properties call the same
    // case with (draw_shift: at most 2^12 each, two in ComposesAdditively):
    // as many again as asked for, at most 2^13 more, within the kernel's
    // max_position and the cache limit. A case's cache is then built once
    // or twice instead of once per property: the builds were a third of a
    // cache kernel's gate run, and scalar_cached's quick gate built 8.30 M
    // rows in 216 builds, now 5.33 M in 158. The kernel is still told
    // `rows` (the call's cache_max_position).
    std::int64_t build_rows = g_spare_rows ? rows + std::min<std::int64_t>(rows, std::int64_t{1} << 13) : rows;
    if (impl.max_position > 0) build_rows = std::min(build_rows, impl.max_position);
    build_rows = std::max(rows, std::min(build_rows, max_cache_elements() / rotary_dim));
    memo.make_writable();
    // Isolated, the builder writes into a poisoned copy and the table is
    // copied back whole: what this buffer held does not matter, so it is
    // only grown (zeroed once) or shrunk. In process the builder writes here:
    // NaN canaries first, so an entry it leaves is a NaN, not a plausible 0.
    const auto entries = static_cast<std::size_t>(build_rows * rotary_dim);
    // Never less than a mapping of its own (ForkPrivateAllocator maps
    // kForkPrivateBytes and more on their own pages), read-only between
    // in-process builds: an in-process call is then handed the memo itself
    // (OwnCachePart) instead of a copy compared after the call, which was
    // 29% of an in-process gate run (memcpy and memcmp of up to 64 MiB per
    // call). Grown in one allocation, without a copy of the old table.
    const std::size_t capacity = std::max(entries, kForkPrivateBytes / sizeof(float));
    if (memo.cache.capacity() < capacity) {
      memo.cache = {};
      memo.cache.reserve(capacity);
    }
    memo.cache.resize(entries);
    if (!inner) fill_canary(reinterpret_cast<unsigned char*>(memo.cache.data()), entries * sizeof(float));
    // Named before the build, which an isolated builder's worker then keeps.
    memo.generation = new_cache_generation();
    name_cache_contents(memo.cache.data(), memo.generation);
    char err[1024] = {0};
    if (auto st = impl.build_cache(impl.ctx, &freq, rotary_dim, build_rows, ROPECHECK_DTYPE_F32, memo.cache.data(),
                                   err, sizeof err)) {
      r->status = st;
      r->message = std::string("build_cache: ") + err;
      note_isolation_finding(*r);
      if (r->misbehaviour.empty()) r->misbehaviour = restore_fp_control(fp_before);
      return {};
    }
    if (std::string left = restore_fp_control(fp_before); !left.empty()) {
      r->status = ROPECHECK_INTERNAL_ERROR;
      r->misbehaviour = "build_cache: " + left;
      return {};
    }
    memo.build = builder.build_cache;
    memo.ctx = builder.ctx;
    memo.key = std::move(key);
    memo.rows = build_rows;
    // Only a memo an in-process call is handed (isolation copies it into
    // the worker's arena): protecting it at each build was 1.2% of a
    // quick gate run with workers.
    if (!inner) memo.make_read_only();
  }
  return {memo.cache.data(), memo.generation, memo.read_only_bytes};
}

}  // namespace ropecheck
