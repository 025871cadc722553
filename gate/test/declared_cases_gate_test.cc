// SPDX-License-Identifier: MIT
// The generator's invariant end to end (issue #48): a correct kernel
// declaring a random part of what it can do is judged by the whole quick
// gate, every property's derived cases included, and must pass: a call
// outside its declaration is refused by its own argument check
// (impls/kernel_support/abi_check, against the declared capabilities), an
// id past its max_position or a KV-cache write in an undeclared dtype or
// scale kind by the wrapper here, and an id narrowed into an int32 buffer by
// the call itself (core/kernel/kernel_call.cc); each such call fails the
// kernel. core/test/declared_cases_test.cc checks the standard suite's cases
// the same way, without calling.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>

#include "core/cases/rng.h"
#include "gate/test/gate_run.h"
#include "impls/kernel_support/abi_check.h"
#include "impls/registry.h"
#include "ropecheck/kv_write.h"

namespace ropecheck {
namespace {

struct Declared {
  const ropecheck_impl_t* inner;
  ropecheck_impl_t table;
};

ropecheck_status_t refuse(char* err, std::size_t n, const std::string& why) {
  std::snprintf(err, n, "outside the declaration: %s", why.c_str());
  return ROPECHECK_INVALID_ARGUMENT;
}

ropecheck_status_t apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  const Declared& d = *static_cast<const Declared*>(ctx);
  if (auto s = impl::check_apply(d.table.caps, p, err, n)) return s;
  const int axes = std::max(1, impl::axes_of(p));
  for (std::int64_t t = 0; t < p->num_tokens; ++t)
    for (int a = 0; a < axes; ++a) {
      const std::int64_t id = impl::position_at(p, t, a);
      if (d.table.max_position > 0 && (id >= d.table.max_position || -id >= d.table.max_position))
        return refuse(err, n, "position " + std::to_string(id) + " past max_position");
    }
  if (const ropecheck_kv_write_t* w = kv_write_of(*p)) {
    if (!((d.table.kv_policy.cache_dtypes >> w->cache_dtype) & 1u)) return refuse(err, n, "kv cache dtype");
    if (!((d.table.kv_policy.scale_kinds >> w->scale_kind) & 1u)) return refuse(err, n, "kv scale kind");
  }
  return d.inner->apply(d.inner->ctx, p, err, n);
}

// `inner`'s table with a random part of its capabilities: a mask bit,
// flag or KV-cache choice it grants is kept or dropped at random (one of
// each pair the ABI needs at least one of is kept), and a max_position drawn.
const ropecheck_impl_t* random_part(Rng& rng, const ropecheck_impl_t* inner, int n) {
  static std::deque<Declared> kept;
  static std::deque<std::string> names;
  Declared& d = kept.emplace_back(Declared{inner, *inner});
  ropecheck_impl_t& t = d.table;
  names.push_back(std::string("declared_") + std::to_string(n));
  t.name = names.back().c_str();
  const auto part = [&](std::uint32_t m) {
    std::uint32_t r = 0;
    while (r == 0) r = m & static_cast<std::uint32_t>(rng.bits());
    return r;
  };
  t.caps.layouts = part(inner->caps.layouts);
  t.caps.dtypes = part(inner->caps.dtypes);
  t.caps.schemes = part(inner->caps.schemes);
  std::uint32_t f = inner->caps.flags;
  for (std::uint32_t bit : {ROPECHECK_CAP_INVERSE, ROPECHECK_CAP_PARTIAL_ROTARY, ROPECHECK_CAP_NEGATIVE_POSITIONS,
                            ROPECHECK_CAP_SEQ_STRIDES, ROPECHECK_CAP_AXES_SECTIONS, ROPECHECK_CAP_AXES_INTERLEAVED,
                            ROPECHECK_CAP_AXES_TABLE})
    if (rng.chance(0.5)) f &= ~bit;
  if (!(f & (ROPECHECK_CAP_AXES_SECTIONS | ROPECHECK_CAP_AXES_INTERLEAVED | ROPECHECK_CAP_AXES_TABLE)))
    f &= ~ROPECHECK_CAP_AXIS_FREQUENCIES;
  // Restrictions narrow what a kernel takes: granting one is a narrower declaration.
  for (std::uint32_t bit : {ROPECHECK_CAP_YARN_TRUNCATED_ONLY, ROPECHECK_CAP_NO_EXPLICIT_ATTENTION_FACTOR,
                            ROPECHECK_CAP_NO_RUNTIME_SEQ_LEN})
    if (rng.chance(0.5)) f |= bit;
  const double placement = rng.uniform(), pos = rng.uniform();
  if (placement < 0.3) f &= ~ROPECHECK_CAP_IN_PLACE;
  else if (placement < 0.6) f &= ~ROPECHECK_CAP_OUT_OF_PLACE;
  if (pos < 0.4) f &= ~ROPECHECK_CAP_POS_INT64;
  else if (pos < 0.6) f &= ~ROPECHECK_CAP_POS_INT32;
  t.caps.flags = f;
  constexpr std::int64_t kMaxPositions[] = {0, 4097, std::int64_t{1} << 20};
  t.max_position = rng.pick(kMaxPositions);
  if (f & ROPECHECK_CAP_KV_CACHE_WRITE) {
    t.kv_policy.cache_dtypes = part(inner->kv_policy.cache_dtypes);
    t.kv_policy.scale_kinds = part(inner->kv_policy.scale_kinds);
  }
  t.ctx = &d;
  t.apply = apply;
  return &t;
}

TEST(DeclaredCasesGate, ACorrectKernelDeclaringPartOfWhatItDoesPassesTheQuickGate) {
  Rng rng(0x7061727473ull);  // "parts"
  const ropecheck_impl_t* rotation = find_impl("scalar_naive");
  const ropecheck_impl_t* fused = find_impl("scalar_fused_kv_vllm");
  ASSERT_NE(rotation, nullptr);
  ASSERT_NE(fused, nullptr);
  std::vector<const ropecheck_impl_t*> impls;
  for (int n = 0; n < 8; ++n) impls.push_back(random_part(rng, n % 2 ? fused : rotation, n));
  const GateRun g = run_quick_gate(impls);
  EXPECT_TRUE(g.report.passed()) << g.text;
  for (const ImplReport& r : g.report.impls) {
    int judged = 0;
    for (const auto& [family, f] : r.families) judged += f.passed + f.failed;
    EXPECT_GT(judged, 0) << r.name << " judged on no case";
  }
}

}  // namespace
}  // namespace ropecheck
