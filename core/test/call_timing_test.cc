// SPDX-License-Identifier: MIT
// Timing a call where it runs (core/isolation/call_timing.h): measured in an
// isolated worker, to the end of the threads the call left working; a
// thread joined before the return is not counted (no race: the kernel sets
// PF_EXITING before a joiner wakes); not measured in a child per call; in
// ropecheck's own process the threads are not known. The misbehaving
// plugins through `ropecheck bench` are speed/test/bench_test.sh.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "core/isolation/call_timing.h"
#include "core/isolation/isolation.h"
#include "core/test/probe_kernel.h"

// A namespace of its own: the unity build compiles it beside the other probe tests.
namespace ropecheck::call_timing_test {
namespace {

enum Command : std::int64_t {
  kCopy = 0,      // q_in into q_out
  kJoined,        // the copy on a thread joined before the return
  kDetached,      // the copy on a detached thread that first sleeps positions[1] ms
  kSleep,         // sleeps positions[1] ms, then the copy
};

constexpr int kTokens = 2, kDim = 4;
constexpr std::size_t kBytes = kTokens * kDim * sizeof(float);

ropecheck_status_t probe(void*, const ropecheck_apply_params_t* p, char*, std::size_t) {
  const auto* pos = static_cast<const std::int64_t*>(p->positions);
  const auto ms = std::chrono::milliseconds(pos[1]);
  const auto copy = [p] { std::memmove(p->q_out, p->q_in, kBytes); };
  switch (pos[0]) {
    case kJoined: std::thread(copy).join(); break;
    case kDetached:
      std::thread([copy, ms] {
        std::this_thread::sleep_for(ms);
        copy();
      }).detach();
      break;
    case kSleep:
      std::this_thread::sleep_for(ms);
      copy();
      break;
    default: copy(); break;
  }
  return ROPECHECK_OK;
}

const ropecheck_impl_t* probe_table() {
  static const ropecheck_impl_t t = test::probe_table("timing_probe", probe);
  return &t;
}

struct Timed {
  ropecheck_status_t status;
  CallTiming t;
  float out[kTokens * kDim];
};

Timed call(const ropecheck_impl_t* impl, std::int64_t command, std::int64_t ms, CacheState caches = CacheState::kWarm,
           bool timed = true) {
  float q[kTokens * kDim];
  Timed r{};
  for (int i = 0; i < kTokens * kDim; ++i) q[i] = static_cast<float>(i + 1);
  std::int64_t positions[kTokens] = {command, ms};
  const test::OneHeadCall args(kTokens, kDim, positions, q, r.out);
  const ropecheck_apply_params_t& p = args.p;
  r.t.caches = caches;
  time_calls(timed ? &r.t : nullptr);
  char err[256] = {0};
  r.status = impl->apply(impl->ctx, &p, err, sizeof err);
  time_calls(nullptr);
  return r;
}

const ropecheck_impl_t* isolated(IsolationMode mode) {
  IsolationOptions o;
  o.mode = mode;
  return isolate(probe_table(), o);
}

TEST(CallTiming, MeasuredInTheWorker) {
  const ropecheck_impl_t* w = isolated(IsolationMode::kWorker);
  for (CacheState c : {CacheState::kWarm, CacheState::kCold}) {
    const Timed r = call(w, kSleep, 3, c);
    ASSERT_EQ(r.status, ROPECHECK_OK);
    EXPECT_TRUE(r.t.measured);
    EXPECT_GE(r.t.nanoseconds, 3000000u) << cache_state_name(c);  // the sleep is inside the clock
    EXPECT_EQ(r.t.threads_working, 0);
    EXPECT_EQ(r.out[kTokens * kDim - 1], static_cast<float>(kTokens * kDim));
  }
}

TEST(CallTiming, AJoinedThreadIsNotCounted) {
  const ropecheck_impl_t* w = isolated(IsolationMode::kWorker);
  for (int i = 0; i < 20; ++i) {  // the join and the flags race in no order
    const Timed r = call(w, kJoined, 0);
    ASSERT_EQ(r.status, ROPECHECK_OK);
    ASSERT_TRUE(r.t.measured);
    ASSERT_EQ(r.t.threads_working, 0) << "call " << i;
  }
}

TEST(CallTiming, AThreadStillWorkingIsCountedAndTimedToItsEnd) {
  const ropecheck_impl_t* w = isolated(IsolationMode::kWorker);
  const Timed r = call(w, kDetached, 20);
  ASSERT_TRUE(r.t.measured);
  EXPECT_EQ(r.t.threads_working, 1);
  EXPECT_GE(r.t.nanoseconds, 20000000u);  // timed until the thread's work ended, not at the return
  // The thread ended before the worker answered: the call returns, its
  // output complete (bench names it from threads_working).
  EXPECT_EQ(r.status, ROPECHECK_OK);
  EXPECT_EQ(r.out[kTokens * kDim - 1], static_cast<float>(kTokens * kDim));
}

TEST(CallTiming, NotMeasuredInAChildPerCallNorWhenNotAsked) {
  EXPECT_FALSE(call(isolated(IsolationMode::kFork), kCopy, 0).t.measured);
  EXPECT_FALSE(call(isolated(IsolationMode::kWorker), kCopy, 0, CacheState::kWarm, /*timed=*/false).t.measured);
}

TEST(CallTiming, InThisProcessTheThreadsAreNotKnown) {
  float q[kTokens * kDim] = {1}, out[kTokens * kDim] = {0};
  std::int64_t positions[kTokens] = {kSleep, 2};
  ropecheck_freq_spec_t f{};
  ropecheck_apply_params_t p{};
  p.struct_size = sizeof p;
  p.num_tokens = kTokens;
  p.num_q_heads = 1;
  p.head_dim = p.rotary_dim = kDim;
  p.q_token_stride = p.q_head_stride = kDim;
  p.q_in = q;
  p.q_out = out;
  p.positions = positions;
  p.freq = &f;
  CallTiming t;
  char err[64];
  ASSERT_EQ(run_timed(*probe_table(), &p, err, &t, /*own_process=*/false), ROPECHECK_OK);
  EXPECT_TRUE(t.measured);
  EXPECT_EQ(t.threads_working, -1);
  EXPECT_GE(t.nanoseconds, 2000000u);
}

}  // namespace
}  // namespace ropecheck::call_timing_test
