// SPDX-License-Identifier: MIT
// The buffers of ABI 1.4's KV-cache write (and 1.5's MLA caches and qk-norm
// weights) under isolation (core/isolation/
// call_extents.h): each is a guarded copy as q and k are, so a fused kernel
// writing before or past a cache, or into the v, the slot mapping or the
// scales it is given, is named by buffer in both isolation modes, and a
// correct write comes back whole. The kernel here wraps scalar_fused_kv_vllm
// and does one wrong thing after it.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "core/cases/buffers.h"
#include "core/isolation/isolation.h"
#include "core/kernel/kernel_call.h"
#include "impls/registry.h"
#include "ropecheck/kv_write.h"
#include "ropecheck/qk_norm.h"

namespace ropecheck {
namespace {

enum class Wrong { kNothing, kBeforeKCache, kPastVCache, kIntoV, kIntoSlots, kIntoScale };
Wrong g_wrong = Wrong::kNothing;  // set before the worker forks, read in it

ropecheck_status_t misbehaving(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const ropecheck_impl_t& fused = *find_impl("scalar_fused_kv_vllm");
  const ropecheck_status_t st = fused.apply(fused.ctx, p, err, n);
  const ropecheck_kv_write_t* w = kv_write_of(*p);
  if (st != ROPECHECK_OK || w == nullptr) return st;
  const std::int64_t last = kv_element_offset(*w, w->num_blocks * w->block_size - 1, p->num_kv_heads - 1,
                                              p->head_dim - 1);
  const std::size_t past = static_cast<std::size_t>(last + 1) * kv_dtype_size(w->cache_dtype);
  switch (g_wrong) {
    case Wrong::kBeforeKCache: static_cast<unsigned char*>(w->k_cache)[-1] ^= 0xff; break;
    case Wrong::kPastVCache: static_cast<volatile unsigned char*>(w->v_cache)[past] = 1; break;
    case Wrong::kIntoV: static_cast<unsigned char*>(const_cast<void*>(w->v))[0] ^= 0x80; break;
    case Wrong::kIntoSlots: const_cast<std::int64_t*>(w->slot_mapping)[0] = -7; break;
    case Wrong::kIntoScale: const_cast<float*>(w->k_scale)[0] = 2.0f; break;
    case Wrong::kNothing: break;
  }
  return st;
}

// The first quick case with a k and a cache write.
Case case_with_write(const ropecheck_impl_t& t) {
  for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
    Case c = make_case(Suite::kQuick, 1, i);
    if (outside_capabilities(t, c).empty() && kv_write_case(c, t.kv_policy) && c.tokens > 1) return c;
  }
  ADD_FAILURE() << "no quick case carries a cache write";
  return make_case(Suite::kQuick, 1, 0);
}

class KvWriteIsolation : public ::testing::TestWithParam<IsolationMode> {};

TEST_P(KvWriteIsolation, EveryBufferOfTheWriteIsGuardedAndNamed) {
  ropecheck_impl_t table = *find_impl("scalar_fused_kv_vllm");
  table.name = "kv_misbehaving";
  table.apply = misbehaving;
  table.kv_cache_kinds = 0;  // K and V caches alone: the wrong writes below address a V cache
  IsolationOptions o;
  o.mode = GetParam();
  const Case c = case_with_write(table);
  const QkBuffers in = make_inputs(c);
  const struct {
    Wrong wrong;
    const char* named;
  } rows[] = {{Wrong::kBeforeKCache, "wrote before the start of kv_write.k_cache"},
              {Wrong::kPastVCache, "past the end of kv_write.v_cache"},
              {Wrong::kIntoV, "wrote into its input kv_write.v"},
              {Wrong::kIntoSlots, "wrote into its input kv_write.slot_mapping"},
              {Wrong::kIntoScale, "wrote into its input kv_write.k_scale"}};
  for (const auto& row : rows) {
    g_wrong = row.wrong;
    const ropecheck_impl_t* isolated = isolate(&table, o);  // a new wrapper: a worker forked with this g_wrong
    const KernelRun r = call_kernel(*isolated, c, in);
    EXPECT_NE(r.misbehaviour.find(row.named), std::string::npos)
        << "expected \"" << row.named << "\", got: " << r.failure();
    retire_workers();
  }
  // A correct write comes back whole: the cache bytes changed where tokens
  // with a slot are written, and the run is clean.
  g_wrong = Wrong::kNothing;
  const KernelRun ok = call_kernel(*isolate(&table, o), c, in);
  EXPECT_TRUE(ok.ok()) << ok.failure();
  ASSERT_TRUE(ok.kv.has_value());
  EXPECT_NE(ok.kv->k_cache, ok.kv->k_initial);
  EXPECT_NE(ok.kv->v_cache, ok.kv->v_initial);
  retire_workers();
}

// ABI 1.5's buffers alike: MLA's latent caches (written past, named by
// cache) and the qk-norm's weights (written into, named by field).
enum class Wrong15 { kNothing, kPastMlaCache, kIntoQWeight, kIntoKWeight };
Wrong15 g_wrong15 = Wrong15::kNothing;

ropecheck_status_t misbehaving_15(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const ropecheck_impl_t& inner = *find_impl(qk_norm_of(*p) ? "scalar_fused_qk_norm_vllm" : "scalar_fused_kv_vllm");
  const ropecheck_status_t st = inner.apply(inner.ctx, p, err, n);
  if (st != ROPECHECK_OK) return st;
  if (const ropecheck_kv_write_t* w = kv_write_of(*p); w && g_wrong15 == Wrong15::kPastMlaCache) {
    const bool split = w->cache_kind == ROPECHECK_KV_CACHE_MLA_SPLIT;
    const std::int64_t last = split ? mla_latent_offset(*w, w->num_blocks * w->block_size - 1, w->latent_dim - 1)
                                    : mla_k_pe_offset(*w, w->num_blocks * w->block_size - 1, p->head_dim - 1);
    void* cache = split ? w->v_cache : w->k_cache;
    static_cast<volatile unsigned char*>(cache)[static_cast<std::size_t>(last + 1) * kv_dtype_size(w->cache_dtype)] = 1;
  }
  if (const ropecheck_qk_norm_t* q = qk_norm_of(*p)) {
    if (g_wrong15 == Wrong15::kIntoQWeight) static_cast<unsigned char*>(const_cast<void*>(q->q_weight))[0] ^= 0x80;
    if (g_wrong15 == Wrong15::kIntoKWeight && q->k_weight)
      static_cast<unsigned char*>(const_cast<void*>(q->k_weight))[0] ^= 0x80;
  }
  return st;
}

TEST_P(KvWriteIsolation, MlaCachesAndQkNormWeightsAreGuardedAndNamed) {
  ropecheck_impl_t mla = *find_impl("scalar_fused_kv_vllm");
  mla.name = "mla_misbehaving";
  mla.apply = misbehaving_15;
  mla.kv_cache_kinds = (1u << ROPECHECK_KV_CACHE_MLA_JOINT) | (1u << ROPECHECK_KV_CACHE_MLA_SPLIT);
  IsolationOptions o;
  o.mode = GetParam();
  int mla_cases = 0;
  for (int i = 0; i < suite_size(Suite::kQuick) && mla_cases < 4; ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    const auto w = kv_write_case(c, mla.kv_policy, mla.kv_cache_kinds);
    if (!outside_capabilities(mla, c).empty() || !w) continue;
    ++mla_cases;
    const QkBuffers in = make_inputs(c);
    g_wrong15 = Wrong15::kPastMlaCache;
    const KernelRun r = call_kernel(*isolate(&mla, o), c, in);
    const std::string cache = w->kind == ROPECHECK_KV_CACHE_MLA_SPLIT ? "kv_write.v_cache" : "kv_write.k_cache";
    EXPECT_NE(r.misbehaviour.find("past the end of " + cache), std::string::npos) << w->describe() << ": " << r.failure();
    retire_workers();
    g_wrong15 = Wrong15::kNothing;
    const KernelRun ok = call_kernel(*isolate(&mla, o), c, in);
    EXPECT_TRUE(ok.ok()) << ok.failure();
    ASSERT_TRUE(ok.kv.has_value());
    EXPECT_NE(ok.kv->k_cache, ok.kv->k_initial);
    retire_workers();
  }
  EXPECT_GE(mla_cases, 2) << "the quick suite has MLA-shaped cases";

  ropecheck_impl_t norm = *find_impl("scalar_fused_qk_norm_vllm");
  norm.name = "qk_norm_misbehaving";
  norm.apply = misbehaving_15;
  Case c = make_case(Suite::kQuick, 1, 0);
  for (int i = 0; i < suite_size(Suite::kQuick) && !(outside_capabilities(norm, c).empty() && c.kv_heads > 0); ++i)
    c = make_case(Suite::kQuick, 1, i);
  const QkNormCase qn = qk_norm_case(c, norm.norm_policy);
  const QkBuffers in = make_inputs(c);
  for (const auto& [wrong, named] : {std::pair{Wrong15::kIntoQWeight, "wrote into its input qk_norm.q_weight"},
                                     std::pair{Wrong15::kIntoKWeight, "wrote into its input qk_norm.k_weight"}}) {
    g_wrong15 = wrong;
    CallOptions with_norm;
    with_norm.norm = &qn;
    const KernelRun r = call_kernel(*isolate(&norm, o), c, in, with_norm);
    EXPECT_NE(r.misbehaviour.find(named), std::string::npos) << "expected \"" << named << "\", got: " << r.failure();
    retire_workers();
  }
  g_wrong15 = Wrong15::kNothing;
}

INSTANTIATE_TEST_SUITE_P(Modes, KvWriteIsolation, ::testing::Values(IsolationMode::kWorker, IsolationMode::kFork),
                         [](const auto& info) { return std::string(isolation_mode_name(info.param)); });

}  // namespace
}  // namespace ropecheck
