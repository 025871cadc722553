// The buffers of ABI 1.4's KV-cache write under isolation (core/isolation/
// call_extents.h): each is a guarded copy as q and k are, so a fused kernel
// writing before or past a cache, or into the v, the slot mapping or the
// scales it is given, is named by buffer in both isolation modes, and a
// correct write comes back whole. The kernel here wraps scalar_fused_kv_vllm
// and does one wrong thing after it.
#include <gtest/gtest.h>

#include <string>

#include "core/cases/buffers.h"
#include "core/isolation/isolation.h"
#include "core/kernel/kernel_call.h"
#include "impls/registry.h"
#include "ropecheck/kv_write.h"

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

INSTANTIATE_TEST_SUITE_P(Modes, KvWriteIsolation, ::testing::Values(IsolationMode::kWorker, IsolationMode::kFork),
                         [](const auto& info) { return std::string(isolation_mode_name(info.param)); });

}  // namespace
}  // namespace ropecheck
