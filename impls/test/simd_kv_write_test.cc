// SPDX-License-Identifier: MIT
// simd_fused_kv_vllm, the Highway kernel fused with the paged KV-cache write
// (impls/simd/fused_kv_simd.cc):
//   - on every Highway target compiled for that this CPU supports (the
//     target as the gtest parameter, by name), on drawn quick cases and the
//     same cases shaped as MLA's rope part: q and k bit for bit simd_cache's
//     on that target (whose rotation simd_targets_test gates there), and
//     every written entry bit for bit the scalar store (store_kv) of the k
//     the kernel itself stored, divided by its scale: K and V caches in NHD
//     and HND, MLA's joint and split latent caches, every cache dtype,
//     per-tensor and per-head scales, padding slots. Together: on each
//     target, a gated rotation and scalar_fused_kv_vllm's store;
//   - the cache entries do not depend on the thread count;
//   - on the dispatched target, the quick gate's cache properties judged on
//     the cases that carry a write, and the same kernel declaring another
//     arithmetic (the scale multiplied; the fp32 k scaled) failing them.
// Small on purpose (CI's budget): positions folded below 4096 keep each
// call's cos/sin cache small (the write does not read positions), and the
// gate runs name their properties (the rotation's conformance is
// simd_cache's, gated by its own tests).
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/cases/axis_cases.h"
#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/cases/kv_write_case.h"
#include "core/cases/rng.h"
#include "core/kernel/impl_validation.h"
#include "core/kernel/kernel_call.h"
#include "gate/test/gate_run.h"
#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/kv_store.h"
#include "impls/registry.h"
#include "impls/simd/simd_impls.h"
#include "impls/test/simd_target_param.h"
#include "properties/property.h"
#include "ropecheck/kv_write.h"

namespace ropecheck {
namespace {

const ropecheck_impl_t& fused() { return *impl::simd_fused_kv_vllm_impl(); }

// Drawn quick case `index`, at most 64 tokens (a write needs <= 4096; fewer
// keep the test fast), positions folded into [0, 4096) (a call's cos/sin
// cache has max_abs_position + 1 rows, up to 2^20 of them built per case),
// shaped as MLA's rope part when `mla` (one k head, every channel rotated:
// the gate draws MLA writes on such cases only).
Case test_case(int index, bool mla) {
  Case c = make_case(Suite::kQuick, 41, index);
  if (c.tokens > 64) {
    keep_first_axis(&c);
    c.tokens = 64;
    c.positions.resize(64);
    c.seq_len = 0;
  }
  for (std::int64_t& p : c.positions) p = (p < 0 ? -p : p) % 4096;
  if (mla) {
    c.kv_heads = 1;
    c.shape.head_dim = c.shape.rotary_dim;
  }
  return c;
}

// Every q and k element of two runs on the same case, bit for bit.
void expect_same_qk(const Case& c, const KernelRun& a, const KernelRun& b, const std::string& what) {
  const Geometry g = geometry(c);
  int wrong = 0;
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int ch = 0; ch < g.head_dim; ++ch) {
          const std::int64_t at = g.offset(w, t, h, ch) * static_cast<std::int64_t>(g.esize);
          if (std::memcmp(a.out.bytes[w].data() + at, b.out.bytes[w].data() + at, g.esize) != 0 && ++wrong <= 3)
            ADD_FAILURE() << what << ": " << (w ? "k" : "q") << " token " << t << " head " << h << " channel " << ch
                          << " differs from simd_cache's";
        }
  EXPECT_EQ(wrong, 0) << what;
}

// What an entry must hold: store_kv of x / scale, one cache element.
std::vector<unsigned char> scalar_store(float x, float scale, KvDtype d) {
  std::vector<unsigned char> b(kv_dtype_size(d));
  const volatile float s = scale;
  impl::store_kv(b.data(), 0, static_cast<std::uint32_t>(d), x / s, true);
  return b;
}

struct Coverage {
  std::set<int> dtypes, kinds, scale_kinds, hnd;
  int entries = 0, padding = 0;
};

// Every written element of the run's caches against scalar_store of the k
// the kernel stored (run.out) and of the v given; the count into `cov`.
void expect_entries_are_scalar_stores(const Case& c, const KernelRun& run, Coverage* cov, const std::string& what) {
  ASSERT_TRUE(run.kv.has_value()) << what << ": no cache write";
  const KvRun& kv = *run.kv;
  const KvWriteCase& w = kv.spec;
  const Geometry g = geometry(c);
  const std::size_t es = kv_dtype_size(w.dtype);
  cov->dtypes.insert(static_cast<int>(w.dtype));
  cov->kinds.insert(w.kind);
  cov->scale_kinds.insert(w.scale_kind);
  cov->hnd.insert(w.hnd);
  int wrong = 0;
  const auto check = [&](const ByteBuffer& cache, std::int64_t at, float x, float scale, const char* part,
                         std::int64_t t, int h, int ch) {
    const std::vector<unsigned char> want = scalar_store(x, scale, w.dtype);
    if (std::memcmp(cache.data() + at * static_cast<std::int64_t>(es), want.data(), es) != 0 && ++wrong <= 3)
      ADD_FAILURE() << what << ": " << part << " of token " << t << " head " << h << " channel " << ch
                    << " is not store_kv of the stored value (" << w.describe() << ")";
  };
  for (std::int64_t t = 0; t < c.tokens; ++t) {
    const std::int64_t slot = w.slots[static_cast<std::size_t>(t)];
    if (slot < 0) {
      ++cov->padding;
      continue;
    }
    for (int h = 0; h < w.v_heads(); ++h) {
      const float ks = w.k_scale[w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? h : 0];
      const float vs = w.mla() ? w.k_scale[0] : w.v_scale[w.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? h : 0];
      for (int ch = 0; ch < w.head_dim; ++ch)
        check(kv.k_cache, w.offset(slot, h, ch),
              impl::load_f32(run.out.bytes[1].data(), g.offset(1, t, h, ch), c.dtype), ks, w.mla() ? "k_pe" : "k", t,
              h, ch);
      for (int ch = 0; ch < w.v_channels(); ++ch)
        check(w.v_in_k_cache() ? kv.k_cache : kv.v_cache, w.v_offset(slot, h, ch),
              impl::load_f32(kv.v.data(), (t * w.v_heads() + h) * w.v_channels() + ch, c.dtype), vs,
              w.mla() ? "kv_c" : "v", t, h, ch);
      ++cov->entries;
    }
  }
  EXPECT_EQ(wrong, 0) << what;
}

// The bytes of every written entry, k's then v's, token by token (the rest
// of a cache holds each call's own random bytes, core/kernel/kernel_call.h).
std::vector<unsigned char> written_entries(const KvRun& kv) {
  const KvWriteCase& w = kv.spec;
  const std::size_t es = kv_dtype_size(w.dtype);
  std::vector<unsigned char> out;
  for (std::size_t t = 0; t < w.slots.size(); ++t) {
    if (w.slots[t] < 0) continue;
    for (int h = 0; h < w.v_heads(); ++h) {
      const unsigned char* k = kv.k_cache.data() + w.offset(w.slots[t], h, 0) * static_cast<std::int64_t>(es);
      out.insert(out.end(), k, k + w.head_dim * es);
      const ByteBuffer& vc = w.v_in_k_cache() ? kv.k_cache : kv.v_cache;
      const unsigned char* v = vc.data() + w.v_offset(w.slots[t], h, 0) * static_cast<std::int64_t>(es);
      out.insert(out.end(), v, v + w.v_channels() * es);
    }
  }
  return out;
}

class SimdFusedKv : public SimdTargetTest {
 protected:
  void SetUp() override {
    SimdTargetTest::SetUp();
    ASSERT_STREQ(fused().target(fused().ctx), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  }
};
ROPECHECK_SIMD_TARGETS_INSTANTIATE(SimdFusedKv);

TEST_P(SimdFusedKv, RotatesAsSimdCacheAndWritesEveryEntryAsTheScalarStore) {
  Coverage cov;
  int calls = 0;
  for (int index = 0; index < 24; ++index)
    for (bool mla : {false, true}) {
      const Case c = test_case(index, mla);
      if (!outside_capabilities(fused(), c).empty()) continue;
      const std::string what = std::string(hwy::TargetName(GetParam())) + ", " + c.describe();
      const QkBuffers in = make_inputs(c);
      const KernelRun run = call_kernel(fused(), c, in);
      ASSERT_TRUE(run.ok()) << what << ": " << run.failure();
      const KernelRun rotation = call_kernel(*impl::simd_cache_impl(), c, in);
      ASSERT_TRUE(rotation.ok()) << what << ": " << rotation.failure();
      ++calls;
      expect_same_qk(c, run, rotation, what);
      expect_entries_are_scalar_stores(c, run, &cov, what);
    }
  EXPECT_GE(calls, 40);
  EXPECT_EQ(cov.dtypes.size(), 5u) << "every cache dtype";
  EXPECT_EQ(cov.kinds.size(), 3u) << "K and V, MLA joint and split";
  EXPECT_EQ(cov.scale_kinds.size(), 2u) << "per tensor and per head";
  EXPECT_EQ(cov.hnd.size(), 2u) << "NHD and HND";
  EXPECT_GT(cov.padding, 0) << "padding slots";
  std::cout << hwy::TargetName(GetParam()) << ": " << calls << " calls, " << cov.entries << " entries, "
            << cov.padding << " padding tokens, bit for bit\n";
}

// Every entry's bits, whatever the number of threads sharing the rows (the
// prefill split between tokens, the decode split inside a token).
TEST(SimdFusedKvThreads, EntriesDoNotDependOnTheThreadCount) {
  for (auto [tokens, q_heads, kv_heads] : {std::tuple{301, 8, 4}, std::tuple{2, 64, 32}}) {
    Case c = make_case(Suite::kQuick, 5, 7);
    keep_first_axis(&c);
    c.tokens = tokens;
    c.seq_len = 0;
    c.q_heads = q_heads;
    c.kv_heads = kv_heads;
    c.shape.head_dim = c.shape.rotary_dim = 256;
    Rng rng(5, 7);  // the scheme was drawn for another rotary_dim
    c.freq = draw_scheme(rng, 256, static_cast<ropecheck_scheme_t>(c.freq.scheme));
    c.positions.resize(static_cast<std::size_t>(tokens));
    for (std::int64_t t = 0; t < tokens; ++t) c.positions[static_cast<std::size_t>(t)] = (t * 2654435761LL) % 32749;
    ASSERT_EQ(outside_capabilities(fused(), c), "") << c.describe();
    const QkBuffers in = make_inputs(c);
    std::vector<unsigned char> one;
    for (int threads : {1, 2, 3, 7}) {
      impl::set_simd_threads(threads);
      const KernelRun run = call_kernel(fused(), c, in);
      impl::set_simd_threads(1);
      ASSERT_TRUE(run.ok()) << run.failure();
      Coverage cov;
      expect_entries_are_scalar_stores(c, run, &cov, std::to_string(threads) + " threads, " + c.describe());
      EXPECT_GT(cov.entries, 0);
      const std::vector<unsigned char> entries = written_entries(*run.kv);
      if (threads == 1) one = entries;
      EXPECT_TRUE(entries == one) << threads << " threads: entries differ from one thread's, " << c.describe();
    }
  }
}

// The cache properties of the quick gate, on every case: their judge reads
// the kernel's declared kv_policy (E9, docs/ERROR_MODEL.md).
const std::vector<std::string> kCacheProperties = {"CachesTheRotatedKAndV", "LeavesTheRestOfTheCacheUnchanged"};

TEST(SimdFusedKvGate, PassesTheQuickGatesCacheProperties) {
  EXPECT_EQ(validate_impl_table(&fused()), "");
  ASSERT_EQ(find_impl("simd_fused_kv_vllm"), &fused()) << "registered by name";
  const GateRun g = run_quick_gate({&fused()}, std::nullopt, kCacheProperties);
  EXPECT_TRUE(g.report.passed()) << g.text;
  for (const std::string& p : kCacheProperties) {
    const PropertyStats& s = property_stats(g.report.impls.at(0), p);
    EXPECT_EQ(s.failed, 0) << p;
    // simd_cache's rotation skips the cases whose cos/sin cache would exceed
    // the limit (positions near 2^20 and up) and negative positions, so
    // fewer than the scalar fused kernels' third of the suite.
    EXPECT_GT(s.passed, suite_size(Suite::kQuick) / 4) << p << " judged too few cases";
  }
  // The writes the gate drew for the cases it judged (its cases, seed 1;
  // its write draws, core/kernel/kernel_call.cc; large cases left to
  // ConformsToReference, properties/property.h): every cache dtype, both
  // scale kinds and both cache layouts among them.
  Coverage drawn;
  int writes = 0;
  for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    if (!outside_capabilities(fused(), c).empty()) continue;  // large cases too: the cache properties judge them
    const std::optional<KvWriteCase> w = kv_write_case(c, fused().kv_policy, fused().kv_cache_kinds);
    if (!w) continue;
    ++writes;
    drawn.dtypes.insert(static_cast<int>(w->dtype));
    drawn.kinds.insert(w->kind);
    drawn.scale_kinds.insert(w->scale_kind);
    drawn.hnd.insert(w->hnd);
  }
  EXPECT_EQ(writes, property_stats(g.report.impls.at(0), "CachesTheRotatedKAndV").passed);
  EXPECT_EQ(drawn.dtypes.size(), 5u) << "every cache dtype judged";
  EXPECT_EQ(drawn.kinds.size(), 3u) << "K and V, MLA joint and split judged";
  EXPECT_EQ(drawn.scale_kinds.size(), 2u) << "per tensor and per head judged";
  EXPECT_EQ(drawn.hnd.size(), 2u) << "NHD and HND judged";
  std::cout << g.text << writes << " writes judged: " << drawn.dtypes.size() << " cache dtypes, "
            << drawn.kinds.size() << " cache kinds, " << drawn.scale_kinds.size() << " scale kinds\n";
}

TEST(SimdFusedKvGate, ADeclarationOtherThanTheArithmeticFails) {
  ropecheck_impl_t multiply = fused();  // divides, declared as multiplying
  multiply.name = "simd_declared_multiply";
  multiply.kv_policy.scale_direction = ROPECHECK_KV_SCALE_MULTIPLY;
  ropecheck_impl_t fp32 = fused();  // scales the stored k, declared as scaling its fp32 k
  fp32.name = "simd_declared_not_via_storage";
  fp32.kv_policy.via_storage = 0;
  ASSERT_EQ(validate_impl_table(&multiply), "");
  ASSERT_EQ(validate_impl_table(&fp32), "");
  const GateRun g = run_quick_gate({&multiply, &fp32}, std::nullopt, {"CachesTheRotatedKAndV"});
  ASSERT_EQ(g.report.impls.size(), 2u);
  for (const ImplReport& r : g.report.impls) {
    const PropertyStats& s = property_stats(r, "CachesTheRotatedKAndV");
    EXPECT_GT(s.failed, 0) << r.name << "\n" << g.text;
    std::cout << r.name << ": CachesTheRotatedKAndV failed " << s.failed << " of " << s.failed + s.passed
              << " judged cases\n";
  }
}

}  // namespace
}  // namespace ropecheck
