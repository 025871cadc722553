// SPDX-License-Identifier: MIT
// Timing one kernel call where it runs, on buffers warmed or flushed first.
#include "core/isolation/call_timing.h"

#include <time.h>

#include <chrono>
#include <vector>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "core/isolation/call_extents.h"
#include "core/isolation/process_tree.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

thread_local CallTiming* t_timing = nullptr;

constexpr std::size_t kLine = 64;  // the cache line of every x86-64 and AArch64 core ropecheck runs on

struct Span {
  const unsigned char* at;
  std::size_t bytes;
};

// The call's buffers, read from its params as isolation reads them
// (core/isolation/call_extents.h): q and k in and out, the position ids,
// the cos/sin cache. (A KV-cache write's caches are not prepared.)
std::vector<Span> call_spans(const ropecheck_apply_params_t& p) {
  std::vector<Span> s;
  const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p.dtype));
  const auto add = [&s](const void* at, std::size_t bytes) {
    if (at && bytes) s.push_back({static_cast<const unsigned char*>(at), bytes});
  };
  const auto qb = static_cast<std::size_t>(extent(p, true)) * es, kb = static_cast<std::size_t>(extent(p, false)) * es;
  add(p.q_out, qb);
  if (p.q_in != p.q_out) add(p.q_in, qb);
  if (p.num_kv_heads > 0) {
    add(p.k_out, kb);
    if (p.k_in != p.k_out) add(p.k_in, kb);
  }
  const std::int64_t ids = position_ids(p);
  if (ids > 0) add(p.positions, static_cast<std::size_t>(ids) * (p.position_type == ROPECHECK_INDEX_INT32 ? 4 : 8));
  if (p.cos_sin_cache && p.cache_max_position > 0 && p.rotary_dim > 0)
    add(p.cos_sin_cache, static_cast<std::size_t>(p.cache_max_position) * static_cast<std::size_t>(p.rotary_dim) *
                             cos_sin_dtype_size(p.cache_dtype));
  return s;
}

void flush_line(const unsigned char* at) {
#if defined(__x86_64__)
  _mm_clflush(at);
#elif defined(__aarch64__)
  asm volatile("dc civac, %0" : : "r"(at) : "memory");
#else
  (void)at;
#endif
}

void prepare(const std::vector<Span>& spans, CacheState c) {
  if (c == CacheState::kWarm) {
    unsigned sum = 0;
    for (const Span& s : spans) {
      for (std::size_t i = 0; i < s.bytes; i += kLine) sum += s.at[i];
      sum += s.at[s.bytes - 1];
    }
    [[maybe_unused]] volatile unsigned sink = sum;
    return;
  }
  for (const Span& s : spans) {
    for (std::size_t i = 0; i < s.bytes; i += kLine) flush_line(s.at + i);
    flush_line(s.at + s.bytes - 1);
  }
#if defined(__x86_64__)
  _mm_mfence();  // every flush done before the clock starts
#elif defined(__aarch64__)
  asm volatile("dsb ish" : : : "memory");
#endif
}

}  // namespace

const char* cache_state_name(CacheState c) { return c == CacheState::kCold ? "cold" : "warm"; }

bool can_flush_caches() {
#if defined(__x86_64__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

void time_calls(CallTiming* t) { t_timing = t; }
CallTiming* timed_calls() { return t_timing; }

ropecheck_status_t run_timed(const ropecheck_impl_t& in, const ropecheck_apply_params_t* p, std::span<char> err,
                             CallTiming* t, bool own_process) {
  using Clock = std::chrono::steady_clock;
  prepare(call_spans(*p), t->caches);
  const Clock::time_point start = Clock::now();
  const ropecheck_status_t st = in.apply(in.ctx, p, err.data(), err.size());
  const Clock::time_point returned = Clock::now();
  Clock::time_point end = returned;
  t->threads_working = own_process ? other_working_threads() : -1;
  if (t->threads_working > 0) {
    // Timed to the end of its work: the timer a kernel would game stops
    // when the work does, not at the return.
    const auto deadline = returned + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(kThreadWaitSeconds));
    while (other_working_threads() > 0 && Clock::now() < deadline) {
      const timespec pause{0, 20000};
      ::nanosleep(&pause, nullptr);
    }
    end = Clock::now();
  }
  t->nanoseconds = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
  t->measured = true;
  return st;
}

}  // namespace ropecheck
