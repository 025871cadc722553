// SPDX-License-Identifier: MIT
// The SIMD kernels' threaded paths: the prefill split (whole tokens), the
// decode split (heads of a few tokens), the worker pool under them, and the
// rule that decides the split. A token's bits must not depend on how many
// threads rotate it, and every row must be rotated exactly once.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/cases/axis_cases.h"
#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/isolation/isolation.h"
#include "core/kernel/kernel_call.h"
#include "impls/simd/row_split.h"
#include "impls/simd/simd_impls.h"
#include "impls/simd/worker_pool.h"
#include "properties/property.h"

namespace ropecheck {
namespace {

// A case big enough for the kernels to split (kMinBytesPerWorker), with
// unrelated positions as in a decode batch, below 32749 so that simd_cache's
// cos/sin cache stays within the limit (max_cache_elements) at rotary_dim 512.
Case big_case(int index, std::int64_t tokens, int q_heads, int kv_heads) {
  Case c = make_case(Suite::kQuick, 5, index);
  keep_first_axis(&c);  // 1D: the test sets the positions
  c.tokens = tokens;
  c.q_heads = q_heads;
  c.kv_heads = kv_heads;
  c.positions.resize(static_cast<std::size_t>(tokens));
  for (std::int64_t t = 0; t < tokens; ++t) c.positions[t] = (t * 2654435761LL) % 32749;
  return c;
}

// Every element of every q and k head the same bits in both runs (padding
// holds each call's own fresh poison, core/kernel/kernel_call.h, so it is not
// compared; ConformsToReference checks that it is left alone).
void expect_same_rows(const Geometry& g, const KernelRun& a, const KernelRun& b, const std::string& what) {
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < g.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h) {
        const auto at = static_cast<std::size_t>(g.offset(w, t, h, 0)) * g.esize;
        ASSERT_EQ(std::memcmp(a.out.bytes[w].data() + at, b.out.bytes[w].data() + at, g.head_dim * g.esize), 0)
            << what << " tensor " << w << " token " << t << " head " << h;
      }
}

// Runs the case with 1, 2, 3 and 7 threads: every element's bits must be
// identical, and the one-thread run within its budget.
void expect_same_bits_for_every_thread_count(const Case& c) {
  const prop::Property* conforms = prop::find_property("ConformsToReference");
  const Geometry g = geometry(c);
  for (const ropecheck_impl_t* k : {impl::simd_cache_impl(), impl::simd_otf_impl()}) {
    ASSERT_EQ(outside_capabilities(*k, c), "") << k->name << ": " << c.describe();
    const QkBuffers in = make_inputs(c);
    impl::set_simd_threads(1);
    const KernelRun one = call_kernel(*k, c, in);
    ASSERT_EQ(one.status, ROPECHECK_OK) << one.message;
    for (int threads : {2, 3, 7}) {
      impl::set_simd_threads(threads);
      const KernelRun many = call_kernel(*k, c, in);
      ASSERT_EQ(many.status, ROPECHECK_OK) << many.message;
      expect_same_rows(g, one, many, std::string(k->name) + ", " + std::to_string(threads) + " threads: " +
                                         c.describe());
    }
    impl::set_simd_threads(1);
    prop::CaseContext ctx(c);
    const prop::PropertyResult r = conforms->check(*k, ctx);
    EXPECT_EQ(r.outcome, Outcome::kPass) << k->name << ": " << r.message;
  }
}

TEST(SimdThreads, PrefillSplitGivesTheSameBitsAsOneThread) {
  // 301 tokens: not a multiple of any thread count; padded strides.
  for (int i = 0; i < 2; ++i) expect_same_bits_for_every_thread_count(big_case(i, 301, 4, 2));
}

TEST(SimdThreads, DecodeSplitGivesTheSameBitsAsOneThread) {
  // Fewer tokens than threads, many heads: the split falls inside tokens.
  for (int i = 0; i < 2; ++i) {
    Case c = big_case(10 + i, 2, 96, 32);
    c.shape.head_dim = c.shape.rotary_dim = 256;
    expect_same_bits_for_every_thread_count(c);
  }
}

TEST(SimdThreads, IsolatedThreadedCallsPassAndGiveTheSameBits) {
  // What `ropecheck check --threads N` does by default: each call in a
  // forked process, a worker (core/isolation/worker.h) or a child per call
  // (core/isolation/isolation.h), which fails a call that leaves a thread running.
  // The split must happen (about 1 MB of q and k). A worker is forked at
  // its first call and keeps the thread count set then, as --threads is set
  // before any: one wrapper per count and mode.
  Case c = big_case(20, 301, 4, 2);
  c.shape.head_dim = c.shape.rotary_dim = 256;
  const Geometry g = geometry(c);
  for (const ropecheck_impl_t* k : {impl::simd_cache_impl(), impl::simd_otf_impl()}) {
    ASSERT_EQ(outside_capabilities(*k, c), "") << k->name << ": " << c.describe();
    const QkBuffers in = make_inputs(c);
    impl::set_simd_threads(1);
    const KernelRun one = call_kernel(*k, c, in);
    ASSERT_EQ(one.status, ROPECHECK_OK) << one.message;
    for (IsolationMode mode : {IsolationMode::kWorker, IsolationMode::kFork})
      for (int threads : {2, 3}) {
        IsolationOptions o;
        o.mode = mode;
        const ropecheck_impl_t* isolated = isolate(k, o);
        impl::set_simd_threads(threads);
        const KernelRun many = call_kernel(*isolated, c, in);
        const KernelRun again = call_kernel(*isolated, c, in);  // a worker's second call
        impl::set_simd_threads(1);
        const std::string what = std::string(k->name) + ", " + std::to_string(threads) + " threads, isolated (" +
                                 isolation_mode_name(mode) + ")";
        ASSERT_TRUE(many.ok()) << what << ": " << many.failure();
        ASSERT_TRUE(again.ok()) << what << ", second call: " << again.failure();
        expect_same_rows(g, one, many, what);
        expect_same_rows(g, one, again, what + ", second call");
      }
    retire_workers();
  }
}

impl::SimdJob job_for(std::int64_t tokens, int qh, int kh, int head_dim, std::uint32_t dtype, void* q, void* k,
                std::int64_t q_token_stride, std::int64_t k_token_stride) {
  impl::SimdJob j;
  j.q = {q, q, q_token_stride, head_dim, qh};
  j.k = {k, k, k_token_stride, head_dim, kh};
  j.num_tokens = tokens;
  j.head_dim = head_dim;
  j.pairs = head_dim / 2;
  j.dtype = dtype;
  return j;
}

void expect_exact_cover(const std::vector<impl::RowRange>& r, std::int64_t rows) {
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r.front().begin, 0);
  EXPECT_EQ(r.back().end, rows);
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_LT(r[i].begin, r[i].end);
    if (i > 0) {
      EXPECT_EQ(r[i].begin, r[i - 1].end);
    }
  }
}

TEST(RowSplit, PrefillSplitsAtTokensThatStartACacheLine) {
  // bf16, one head of 80 channels and a 2-element pad per token: token t of
  // q and of k starts at byte 164 t, a cache line only for t a multiple of 16.
  alignas(64) static unsigned char q[1], k[1];
  const impl::SimdJob j = job_for(1000, 1, 1, 80, ROPECHECK_DTYPE_BF16, q, k, 82, 82);
  const auto r = impl::split_rows(j, 2);
  ASSERT_EQ(r.size(), 2u);
  expect_exact_cover(r, j.rows());
  const std::int64_t cut_token = r[1].begin / j.heads_per_token();
  EXPECT_EQ(r[1].begin % j.heads_per_token(), 0) << "prefill splits between tokens";
  EXPECT_EQ((cut_token * 82 * 2) % 64, 0) << "split at token " << cut_token;
  EXPECT_LE(std::abs(cut_token - 500), 32) << "and near the middle";
}

TEST(RowSplit, DecodeSplitsInsideATokenAndSmallJobsStayOnOneWorker) {
  alignas(64) static unsigned char q[1], k[1];
  const impl::SimdJob decode = job_for(1, 64, 8, 128, ROPECHECK_DTYPE_F32, q, k, 64 * 128, 8 * 128);
  const auto r = impl::split_rows(decode, 4);
  EXPECT_EQ(r.size(), 1u) << "72 heads of 512 bytes are 36 KiB, under one worker's minimum";
  const impl::SimdJob wide = job_for(1, 128, 128, 512, ROPECHECK_DTYPE_F32, q, k, 128 * 512, 128 * 512);
  const auto w = impl::split_rows(wide, 4);
  ASSERT_EQ(w.size(), 4u);
  expect_exact_cover(w, wide.rows());
  for (const impl::RowRange& x : w) EXPECT_EQ(x.end - x.begin, 64) << "one token's 256 heads, evenly";
  const impl::SimdJob one_token_per_thread = job_for(3, 4, 4, 64, ROPECHECK_DTYPE_F16, q, k, 256, 256);
  expect_exact_cover(impl::split_rows(one_token_per_thread, 8), one_token_per_thread.rows());
}

TEST(WorkerPool, RunsEveryTaskOnceAndWaitsForAll) {
  for (int n : {1, 2, 3, 8, 5, 2}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    impl::run_parallel(n, [&](int i) { hits[static_cast<std::size_t>(i)].fetch_add(1); });
    for (int i = 0; i < n; ++i) EXPECT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << "task " << i << " of " << n;
  }
}

TEST(WorkerPool, ConcurrentCallersEachGetAllTheirTasks) {
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int rep = 0; rep < 200; ++rep) impl::run_parallel(3, [&](int) { total.fetch_add(1); });
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 200 * 3);
}

// Threads of this process, from /proc/self/task.
int live_threads() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

TEST(WorkerPool, AChildAfterForkRunsEveryTaskAndLeavesNoThreadRunning) {
  impl::run_parallel(3, [](int) {});  // the parent's workers exist now
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);  // a child stuck on its parent's workers dies of SIGALRM
    std::atomic<int> n{0};
    impl::run_parallel(3, [&](int) { n.fetch_add(1); });
    if (n.load() != 3) _exit(1);
    // Isolation fails a call that leaves a thread running (core/isolation/isolation.h):
    // in a child the workers are joined before run_parallel returns.
    _exit(live_threads() == 1 ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child status " << status;
  EXPECT_NE(WEXITSTATUS(status), 1) << "a task was not run exactly once";
  EXPECT_NE(WEXITSTATUS(status), 2) << "the child had threads running after run_parallel returned";
}

}  // namespace
}  // namespace ropecheck
