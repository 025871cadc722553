// SPDX-License-Identifier: MIT
// core/kernel/poison_key.h and seed_poison (core/cases/buffers.h): what a
// kernel's buffers arrive holding (an out-of-place output's poison, a KV
// cache's initial state) follows from the call alone, so a failure's
// reproduce line hands the kernel the same bytes in a fresh process, on
// another thread, after other calls; and calls that differ get other bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/kv_write_case.h"
#include "core/kernel/kernel_call.h"
#include "core/kernel/poison_key.h"
#include "impls/registry.h"
#include "ropecheck/capabilities.h"

namespace ropecheck {
namespace {

// Writes nothing: what comes back is the poison the output arrived holding
// (and a cache write's caches as they arrived).
ropecheck_status_t writes_nothing(void*, const ropecheck_apply_params_t*, char*, std::size_t) { return ROPECHECK_OK; }

ropecheck_impl_t lazy(const char* like) {
  ropecheck_impl_t t = *find_impl(like);
  t.name = "writes_nothing";
  t.apply = writes_nothing;
  return t;
}

// The first quick case that is out of place (and, for a kernel granting the
// cache write, carries one).
Case first_case(const ropecheck_impl_t& t, int after = -1) {
  for (int i = after + 1; i < suite_size(Suite::kQuick); ++i) {
    Case c = make_case(Suite::kQuick, 1, i);
    const bool write = !(t.caps.flags & ROPECHECK_CAP_KV_CACHE_WRITE) || kv_write_case(c, t.kv_policy);
    if (!c.in_place && c.tokens > 1 && c.kv_heads > 0 && write) return c;
  }
  ADD_FAILURE() << "no quick case fits";
  return make_case(Suite::kQuick, 1, 0);
}

struct Arrived {
  ByteBuffer q, k, k_cache, v_cache;
  bool operator==(const Arrived&) const = default;
};

Arrived arrived(const ropecheck_impl_t& t, const Case& c, const CallOptions& o = {}) {
  const KernelRun r = call_kernel(t, c, make_inputs(c), o);
  EXPECT_TRUE(r.ok()) << r.failure();
  Arrived a{r.out.bytes[0], r.out.bytes[1], {}, {}};
  if (r.kv) {
    a.k_cache = r.kv->k_initial;
    a.v_cache = r.kv->v_initial;
  }
  return a;
}

// On a fresh thread (its stream in its initial state), or after another
// call and other draws from the stream.
Arrived on_fresh_thread(const ropecheck_impl_t& t, const Case& c, bool disturb_first) {
  Arrived a;
  std::thread th([&] {
    if (disturb_first) {
      (void)arrived(t, first_case(t, c.index), {});
      for (int i = 0; i < 17; ++i) (void)draw_below(1000);
    }
    a = arrived(t, c);
  });
  th.join();
  return a;
}

TEST(PoisonStream, AnOutputArrivesTheSameWhateverRanBefore) {
  const ropecheck_impl_t t = lazy("scalar_naive");
  const Case c = first_case(t);
  const Arrived fresh = on_fresh_thread(t, c, false), disturbed = on_fresh_thread(t, c, true);
  ASSERT_FALSE(fresh.q.empty());
  EXPECT_TRUE(fresh == disturbed) << "the poison of " << c.describe() << " depends on what ran before";
}

TEST(PoisonStream, AKvCacheArrivesTheSameWhateverRanBefore) {
  const ropecheck_impl_t t = lazy("scalar_fused_kv_vllm");
  const Case c = first_case(t);
  const Arrived fresh = on_fresh_thread(t, c, false), disturbed = on_fresh_thread(t, c, true);
  ASSERT_FALSE(fresh.k_cache.empty());
  EXPECT_TRUE(fresh == disturbed) << "a KV cache's initial state for " << c.describe()
                                  << " depends on what ran before";
}

TEST(PoisonStream, OtherCallsGetOtherBytes) {
  // Finite poison (random payloads) asked for explicitly: two calls that
  // differ in the case, the kernel's name or the poison asked for must not
  // arrive holding the same bytes.
  ropecheck_impl_t t = lazy("scalar_naive");
  const Case c = first_case(t), other = first_case(t, c.index);
  CallOptions finite;
  finite.poison = PoisonKind::kFinite;
  CallOptions nan;
  nan.poison = PoisonKind::kNan;
  const Arrived a = arrived(t, c, finite);
  EXPECT_FALSE(a == arrived(t, other, finite));
  t.name = "writes_nothing_renamed";
  EXPECT_FALSE(a == arrived(t, c, finite));
  t.name = "writes_nothing";
  EXPECT_TRUE(a == arrived(t, c, finite));  // and the same call, the same bytes
  // A NaN poison of the same call draws from another stream: its payloads
  // are not the finite poison's bits with the exponent replaced.
  const Arrived b = arrived(t, c, nan);
  std::size_t same_low_byte = 0;
  for (std::size_t i = 0; i < a.q.size(); ++i) same_low_byte += a.q[i] == b.q[i];
  EXPECT_LT(same_low_byte, a.q.size() / 2);
}

TEST(PoisonStream, TheKeyReadsEveryFieldItNames) {
  const Case c = make_case(Suite::kQuick, 1, 3);
  const std::uint64_t k = poison_key(c, "k", 0);
  EXPECT_EQ(k, poison_key(c, "k", 0));
  EXPECT_NE(k, poison_key(c, "k", 1));
  EXPECT_NE(k, poison_key(c, "kk", 0));
  EXPECT_NE(k, poison_key(c, "longer than eight bytes", 0));
  Case shifted = c;
  for (std::int64_t& p : shifted.positions) p += 1;
  EXPECT_NE(k, poison_key(shifted, "k", 0));
  Case seeded = c;
  seeded.seed += 1;
  EXPECT_NE(k, poison_key(seeded, "k", 0));
  Case placed = c;
  placed.in_place = !c.in_place;
  EXPECT_NE(k, poison_key(placed, "k", 0));
}

}  // namespace
}  // namespace ropecheck
