// SPDX-License-Identifier: MIT
// The SIMD kernels on every Highway target they were compiled for that this
// CPU supports, not only the one the dispatcher would pick, the static
// baseline target included: each target is a gtest parameter printed by name
// (SimdTargetsGroup/SimdTargets.PassEveryPropertyOnThisTarget/SCALAR;
// simd_target_param.h). Non-finite inputs: simd_special_inputs_test.cc.
//   - the whole quick gate (every property);
//   - every storage dtype x layout x head shape whose pair count exercises a
//     different mix of whole vectors and tails (1 pair up to 256, odd counts,
//     partial rotary), judged against the reference;
//   - bf16 NaN of every payload, and NaN in a caller's cos/sin cache, come
//     out as NaN (the narrowing has no per-lane NaN test; rope_simd-inl.h).
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/cases/axis_cases.h"
#include "core/cases/cases.h"
#include "gate/test/gate_run.h"
#include "impls/simd/simd_impls.h"
#include "impls/test/simd_target_param.h"
#include "properties/property.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

// The baseline target is the one every CPU of the build's architecture runs,
// and the only one a static-dispatch build (HWY_COMPILE_ONLY_STATIC) has: it
// must be among the parameters, as must every target the CPU supports.
TEST(SimdTargetList, HoldsTheBaselineAndEverySupportedCompiledTarget) {
  const std::vector<std::int64_t> targets = impl::simd_runnable_targets();
  std::string names;
  std::int64_t all = 0;
  for (std::int64_t t : targets) {
    names += std::string(" ") + hwy::TargetName(t);
    all |= t;
  }
  std::printf("kernels compiled for 0x%llx, baseline %s; tested:%s\n",
              static_cast<unsigned long long>(impl::simd_compiled_targets()),
              hwy::TargetName(impl::simd_baseline_target()), names.c_str());
  EXPECT_NE(all & impl::simd_baseline_target(), 0) << "baseline " << hwy::TargetName(impl::simd_baseline_target())
                                                   << " untested; tested:" << names;
  EXPECT_EQ(all, hwy::SupportedTargets() & impl::simd_compiled_targets());
}

class SimdTargets : public SimdTargetTest {};
ROPECHECK_SIMD_TARGETS_INSTANTIATE(SimdTargets);

TEST_P(SimdTargets, PassEveryPropertyOnThisTarget) {
  const std::string expected = hwy::TargetName(GetParam());
  ASSERT_EQ(std::string(impl::simd_target_name()), expected) << "the dispatcher did not switch target";
  const GateRun g = run_quick_gate({impl::simd_cache_impl(), impl::simd_otf_impl()}, 40);
  EXPECT_TRUE(g.report.passed()) << "target " << expected << "\n" << g.text;
  for (const auto& i : g.report.impls)
    for (const auto& [name, s] : i.properties)
      if (s.applicable) {
        EXPECT_GT(s.passed, 0) << i.name << " " << name << " never ran";
      }
}

// (head_dim, rotary_dim): pair counts below, at and above the vector widths
// of every target (4, 8, 16 fp32 lanes; bf16 half split takes 2N pairs per
// step), odd ones (9, 17, 33, 40, 72: head_dim 80 and 144), partial rotary
// and an odd head_dim with pass-through channels.
constexpr std::pair<int, int> kShapes[] = {{2, 2},     {6, 6},     {18, 18},   {34, 34},  {67, 66},
                                           {80, 80},   {96, 48},   {128, 128}, {144, 144}, {130, 128},
                                           {256, 256}, {512, 512}, {512, 130}};

TEST_P(SimdTargets, EveryDtypeLayoutAndTailOnThisTarget) {
  ASSERT_STREQ(impl::simd_target_name(), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  const prop::Property* conforms = prop::find_property("ConformsToReference");
  ASSERT_NE(conforms, nullptr);
  int index = 0, judged = 0;
  for (ropecheck_dtype_t dtype : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16})
    for (ropecheck_layout_t layout : {ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED})
      for (auto [head_dim, rotary_dim] : kShapes) {
        // A drawn case (its scheme, inputs, padding) with the shape forced.
        Case c = make_case(Suite::kQuick, 23, index++);
        keep_first_axis(&c);  // 1D: the test sets the positions
        c.shape.head_dim = head_dim;
        c.shape.rotary_dim = rotary_dim;
        c.dtype = dtype;
        c.layout = layout;
        c.tokens = 3;
        c.q_heads = 2;
        c.kv_heads = 1;
        c.positions = {0, 4097, 8191};
        c.in_place = index % 2 == 0;
        c.direction = index % 5 == 0 ? ROPECHECK_DIRECTION_INVERSE : ROPECHECK_DIRECTION_FORWARD;
        // The scheme was drawn for another rotary_dim: redraw it for this one.
        Rng rng(23, static_cast<std::uint64_t>(index));
        c.freq = draw_scheme(rng, rotary_dim, static_cast<ropecheck_scheme_t>(c.freq.scheme));
        prop::CaseContext ctx(c);
        for (const ropecheck_impl_t* k : {impl::simd_cache_impl(), impl::simd_otf_impl()}) {
          const prop::PropertyResult r = conforms->check(*k, ctx);
          if (r.outcome == Outcome::kSkipped) continue;
          ++judged;
          EXPECT_EQ(r.outcome, Outcome::kPass) << k->name << " on " << hwy::TargetName(GetParam()) << ": "
                                               << c.describe() << "\n"
                                               << r.message;
        }
      }
  EXPECT_GT(judged, 100) << "too many shapes skipped";
}

TEST_P(SimdTargets, Bf16NaNsStayNaNOnThisTarget) {
  ASSERT_STREQ(impl::simd_target_name(), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  // One token, one q head of 128 channels, every bf16 NaN payload of both
  // signs in turn at channel 5; the cache's cos of pair 9 a NaN with every
  // payload bit set (0x7fffffff), which a carry would turn into -0.
  constexpr int kDim = 128, kPairs = kDim / 2;
  std::vector<float> cache(2 * kDim, 0.5f);
  cache[kDim + 9] = f32_from_bits(0x7fffffffu);  // row 1, cos of pair 9
  const std::int64_t pos = 1;
  ropecheck_freq_spec_t freq{};
  freq.scheme = ROPECHECK_SCHEME_DEFAULT;
  freq.base = 10000;
  for (ropecheck_layout_t layout : {ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED}) {
    const int nan_partner = layout == ROPECHECK_LAYOUT_INTERLEAVED ? 4 : 5 + kPairs;  // channel 5's pair
    const int pair9[2] = {layout == ROPECHECK_LAYOUT_INTERLEAVED ? 18 : 9,
                          layout == ROPECHECK_LAYOUT_INTERLEAVED ? 19 : 9 + kPairs};
    for (const ropecheck_impl_t* k : {impl::simd_cache_impl(), impl::simd_otf_impl()})
      for (std::uint32_t payload = 0x7f81; payload <= 0xffff; ++payload) {
        if ((payload & 0x7fff) <= 0x7f80) continue;  // not a NaN
        std::vector<std::uint16_t> q(kDim, 0x3f80);     // 1.0
        q[5] = static_cast<std::uint16_t>(payload);
        ropecheck_apply_params_t p{};
        p.struct_size = sizeof p;
        p.dtype = ROPECHECK_DTYPE_BF16;
        p.layout = layout;
        p.num_tokens = 1;
        p.num_q_heads = 1;
        p.head_dim = p.rotary_dim = kDim;
        p.q_in = p.q_out = q.data();
        p.q_token_stride = p.q_head_stride = kDim;
        p.positions = &pos;
        p.position_type = ROPECHECK_INDEX_INT64;
        p.freq = &freq;
        p.cos_sin_cache = cache.data();
        p.cache_dtype = ROPECHECK_DTYPE_F32;
        p.cache_max_position = 2;
        char err[256] = {0};
        ASSERT_EQ(k->apply(k->ctx, &p, err, sizeof err), ROPECHECK_OK) << err;
        for (int ch : {5, nan_partner}) {
          ASSERT_TRUE(std::isnan(bf16_to_f32(q[ch]))) << k->name << " channel " << ch << " payload 0x" << std::hex
                                                      << payload << " gave 0x" << q[ch];
        }
        if (k == impl::simd_cache_impl()) {
          for (int ch : pair9) ASSERT_TRUE(std::isnan(bf16_to_f32(q[ch]))) << "cache NaN lost at channel " << ch;
        }
      }
  }
}

}  // namespace
}  // namespace ropecheck
