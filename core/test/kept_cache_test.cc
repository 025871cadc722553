// SPDX-License-Identifier: MIT
// A worker keeps a named cos/sin cache between calls (name_cache_contents,
// core/isolation/isolation.h) instead of copying it in for every call: the
// call that places it proves its copy equal to the caller's, and from then on
// the worker holds it read-only. A kernel that writes into a kept cache (its
// own or the other region's) faults and fails its call, a caller that
// changes the bytes under the same name gets a failing call (a sample of the
// pages is compared: never one judged on bytes changed throughout), and a
// new name brings the new bytes in. A probe kernel copies the first floats
// of its cache into q_out, then does what positions[0] says.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/isolation/isolation.h"
#include "core/test/probe_kernel.h"

// A namespace of its own: the unity build compiles it beside the other probe tests.
namespace ropecheck::kept_cache_test {
namespace {

enum Command : std::int64_t {
  kRead = 0,       // q_out = the cache's first floats
  kWriteCache,     // and then one write into the cache
  kWriteAddress,   // and then one write at the address in positions[1]
};

constexpr int kTokens = 2, kHeadDim = 4, kElements = kTokens * kHeadDim;
constexpr std::int64_t kRows = 4096;  // a cache of several pages

ropecheck_status_t probe(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const auto* pos = static_cast<const std::int64_t*>(p->positions);
  const auto* cache = static_cast<const float*>(p->cos_sin_cache);
  std::memcpy(p->q_out, cache, kElements * sizeof(float));
  std::memcpy(p->k_out, p->k_in, kElements * sizeof(float));
  if (pos[0] == kWriteCache) const_cast<float*>(cache)[kRows * kHeadDim - 1] = -1.0f;
  if (pos[0] == kWriteAddress) *reinterpret_cast<volatile float*>(static_cast<std::uintptr_t>(pos[1])) = -1.0f;
  std::snprintf(err, n, "cache=%p", p->cos_sin_cache);
  return ROPECHECK_OK;
}

ropecheck_status_t build(void*, const ropecheck_freq_spec_t*, std::int32_t, std::int64_t, std::uint32_t, void*,
                         char*, std::size_t) {
  return ROPECHECK_OK;
}

const ropecheck_impl_t* isolated_probe() {
  static const ropecheck_impl_t inner = test::probe_table("cache_probe", probe, build, ROPECHECK_CAP_COS_SIN_CACHE);
  return isolate(&inner, IsolationOptions{});
}

struct Result {
  ropecheck_status_t status = ROPECHECK_OK;
  std::string message;
  const void* cache = nullptr;  // where the kernel saw it
  float first = 0;              // the cache's first float, as the kernel saw it
};

Result call(const ropecheck_impl_t* t, const std::vector<float>& cache, std::int64_t command, std::int64_t arg = 0,
            std::int64_t rows = kRows) {
  std::vector<float> q_in(kElements, 1.0f), k_in(kElements, 2.0f), q_out(kElements, 0.0f), k_out(kElements, 0.0f);
  std::int64_t positions[kTokens] = {command, arg};
  test::OneHeadCall args(kTokens, kHeadDim, positions, q_in.data(), q_out.data(), k_in.data(), k_out.data());
  ropecheck_apply_params_t& p = args.p;
  p.cos_sin_cache = cache.data();
  p.cache_dtype = ROPECHECK_DTYPE_F32;
  p.cache_max_position = rows;
  char err[1024] = {0};
  Result r;
  r.status = t->apply(t->ctx, &p, err, sizeof err);
  r.message = err;
  std::sscanf(err, "cache=%p", const_cast<void**>(&r.cache));
  r.first = q_out[0];
  return r;
}

// Two calls fill both regions of the worker; the third and fourth are
// handed the caches those kept.
TEST(KeptCache, ANewNameBringsTheNewBytesIn) {
  const ropecheck_impl_t* t = isolated_probe();
  std::vector<float> cache(kRows * kHeadDim, 0.5f);
  name_cache_contents(cache.data(), 1);
  const Result a = call(t, cache, kRead), b = call(t, cache, kRead), c = call(t, cache, kRead);
  ASSERT_EQ(c.status, ROPECHECK_OK) << c.message;
  EXPECT_EQ(a.cache, c.cache);  // the same region, the same place
  EXPECT_NE(a.cache, b.cache);  // two calls in a row never share an address
  EXPECT_EQ(c.first, 0.5f);
  cache.assign(cache.size(), 0.25f);  // new bytes at the same address
  name_cache_contents(cache.data(), 2);
  const Result d = call(t, cache, kRead), e = call(t, cache, kRead);
  ASSERT_EQ(d.status, ROPECHECK_OK) << d.message;
  ASSERT_EQ(e.status, ROPECHECK_OK) << e.message;
  EXPECT_EQ(d.first, 0.25f);
  EXPECT_EQ(e.first, 0.25f);
  name_cache_contents(nullptr, 0);
  retire_workers();
}

TEST(KeptCache, BytesChangedUnderTheSameNameFailTheCallNeverPassIt) {
  const ropecheck_impl_t* t = isolated_probe();
  std::vector<float> cache(kRows * kHeadDim, 0.5f);
  name_cache_contents(cache.data(), 7);
  ASSERT_EQ(call(t, cache, kRead).status, ROPECHECK_OK);
  ASSERT_EQ(call(t, cache, kRead).status, ROPECHECK_OK);
  cache.assign(cache.size(), 0.25f);  // not named again: the caller's mistake
  const Result c = call(t, cache, kRead);
  EXPECT_EQ(c.status, ROPECHECK_INTERNAL_ERROR);
  EXPECT_NE(c.message.find("whose source changed under the same name"), std::string::npos) << c.message;
  name_cache_contents(nullptr, 0);
  retire_workers();
}

TEST(KeptCache, AWriteIntoAKeptCacheFailsTheCall) {
  const ropecheck_impl_t* t = isolated_probe();
  std::vector<float> cache(kRows * kHeadDim, 0.5f);
  name_cache_contents(cache.data(), 11);
  ASSERT_EQ(call(t, cache, kRead).status, ROPECHECK_OK);
  ASSERT_EQ(call(t, cache, kRead).status, ROPECHECK_OK);
  const Result c = call(t, cache, kWriteCache);  // handed the kept copy: read-only
  EXPECT_EQ(c.status, ROPECHECK_INTERNAL_ERROR);
  EXPECT_NE(c.message.find("wrote into its input cos_sin_cache"), std::string::npos) << c.message;
  // The worker was retired and nothing was kept: the next call is clean.
  const Result d = call(t, cache, kRead);
  EXPECT_EQ(d.status, ROPECHECK_OK) << d.message;
  EXPECT_EQ(d.first, 0.5f);
  name_cache_contents(nullptr, 0);
  retire_workers();
}

// A call handed fewer rows of the same cache (a derived case) goes after the
// kept one: the next call of the usual rows is handed it again (shown by
// changing the bytes under the same name, which only a kept copy misses).
TEST(KeptCache, ACallWithFewerRowsLeavesTheKeptCacheInPlace) {
  const ropecheck_impl_t* t = isolated_probe();
  std::vector<float> cache(kRows * kHeadDim, 0.5f);
  name_cache_contents(cache.data(), 17);
  const Result a = call(t, cache, kRead);
  ASSERT_EQ(call(t, cache, kRead).status, ROPECHECK_OK);
  const Result c = call(t, cache, kRead, 0, kRows - 1);  // region of a, placed after its cache
  ASSERT_EQ(c.status, ROPECHECK_OK) << c.message;
  EXPECT_NE(c.cache, a.cache);
  EXPECT_EQ(c.first, 0.5f);
  ASSERT_EQ(call(t, cache, kRead).status, ROPECHECK_OK);  // region of b
  cache.assign(cache.size(), 0.25f);  // not named again
  const Result e = call(t, cache, kRead);  // region of a: its cache was kept, not copied again
  EXPECT_EQ(e.status, ROPECHECK_INTERNAL_ERROR) << e.message;
  EXPECT_NE(e.message.find("whose source changed under the same name"), std::string::npos) << e.message;
  name_cache_contents(nullptr, 0);
  retire_workers();
}

// A kernel that writes into the cache another call keeps (the other region
// of its arena) faults in that very call: the kept cache is read-only in the
// worker from the call after the one that placed it; a copy per call would
// have put the bytes back unseen. Its last byte too (the write sampling
// would miss), and its first.
TEST(KeptCache, AStrayWriteIntoTheOtherRegionsCacheFailsThatCall) {
  const ropecheck_impl_t* t = isolated_probe();
  std::vector<float> cache(kRows * kHeadDim, 0.5f);
  name_cache_contents(cache.data(), 13);
  const Result a = call(t, cache, kRead);
  ASSERT_EQ(a.status, ROPECHECK_OK) << a.message;
  const auto first = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(a.cache));
  const std::int64_t last = first + static_cast<std::int64_t>(sizeof(float)) * (kRows * kHeadDim - 1);
  for (const std::int64_t at : {first, last}) {
    const Result b = call(t, cache, kWriteAddress, at);  // the other region
    EXPECT_EQ(b.status, ROPECHECK_INTERNAL_ERROR) << b.message;
    EXPECT_NE(b.message.find("a cos/sin cache its worker keeps"), std::string::npos) << b.message;
    // The worker was retired: a new one gets the kept caches read-only again.
    const Result c = call(t, cache, kRead);
    EXPECT_EQ(c.status, ROPECHECK_OK) << c.message;
    EXPECT_EQ(c.first, 0.5f);
  }
  name_cache_contents(nullptr, 0);
  retire_workers();
}

// A cache build gets nothing of the caller's buffer: the builder must write
// every entry, and one it leaves comes back a NaN (this builder writes none),
// never what the buffer held before.
TEST(KeptCache, ABuildThatWritesNothingReturnsNaNs) {
  const ropecheck_impl_t* t = isolated_probe();
  ropecheck_freq_spec_t f{};
  f.scheme = ROPECHECK_SCHEME_DEFAULT;
  f.base = 10000;
  std::vector<float> out(static_cast<std::size_t>(kRows * kHeadDim), 0.5f);
  char err[1024] = {0};
  ASSERT_EQ(t->build_cache(t->ctx, &f, kHeadDim, kRows, ROPECHECK_DTYPE_F32, out.data(), err, sizeof err),
            ROPECHECK_OK)
      << err;
  for (std::size_t i = 0; i < out.size(); ++i) ASSERT_TRUE(std::isnan(out[i])) << "entry " << i << ": " << out[i];
}

}  // namespace
}  // namespace ropecheck::kept_cache_test
