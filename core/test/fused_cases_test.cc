// SPDX-License-Identifier: MIT
// The fused parts a case carries (ABI 1.5): MLA writes on the cases shaped
// as MLA's rope part, of both cache kinds, a latent of 512 or 256 channels
// and one scale, while every other write stays what it was; the qk-norm's
// weights in the declared forms and values of the storage dtype; the exact
// normalised inputs against a direct evaluation of the formula.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "core/cases/kv_write_case.h"
#include "core/cases/qk_norm_case.h"
#include "core/judge/qk_norm_reference.h"
#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"

namespace ropecheck {
namespace {

constexpr ropecheck_kv_policy_t kPolicy{sizeof(ropecheck_kv_policy_t), (1u << ROPECHECK_KV_DTYPE_COUNT) - 1u,
                                        (1u << ROPECHECK_KV_SCALE_KIND_COUNT) - 1u, ROPECHECK_KV_SCALE_DIVIDE, 1u, 1u};
constexpr std::uint32_t kAllKinds = (1u << ROPECHECK_KV_CACHE_KIND_COUNT) - 1u;

TEST(FusedCases, MlaWritesComeOnMlaShapedCasesAndLeaveTheOthersAsTheyWere) {
  std::set<int> kinds, latents;
  int mla = 0;
  for (int i = 0; i < suite_size(Suite::kStandard); ++i) {
    const Case c = make_case(Suite::kStandard, 1, i);
    const std::optional<KvWriteCase> plain = kv_write_case(c, kPolicy);
    const std::optional<KvWriteCase> any = kv_write_case(c, kPolicy, kAllKinds);
    ASSERT_EQ(plain.has_value(), any.has_value()) << c.describe();
    if (!any) continue;
    EXPECT_EQ(plain->kind, ROPECHECK_KV_CACHE_K_AND_V);
    if (c.kv_heads == 1 && c.shape.rotary_dim == c.shape.head_dim) kinds.insert(any->kind);
    if (!any->mla()) {  // the same draws as a 1.4 kernel's write
      EXPECT_EQ(any->slots, plain->slots);
      EXPECT_EQ(any->k_scale, plain->k_scale);
      EXPECT_EQ(any->block_stride, plain->block_stride);
      continue;
    }
    ++mla;
    EXPECT_TRUE(c.kv_heads == 1 && c.shape.rotary_dim == c.shape.head_dim) << c.describe();
    latents.insert(any->latent_dim);
    EXPECT_EQ(any->scale_kind, ROPECHECK_KV_SCALE_PER_TENSOR);
    ASSERT_EQ(any->k_scale.size(), 1u);
    EXPECT_EQ(any->v_scale, any->k_scale);
    EXPECT_EQ(any->slots, plain->slots);  // drawn before the MLA draws
    // Every entry inside its cache.
    for (std::int64_t s : any->slots) {
      if (s < 0) continue;
      EXPECT_LE(static_cast<std::size_t>(any->offset(s, 0, any->head_dim - 1) + 1) * kv_dtype_size(any->dtype),
                any->cache_bytes());
      const std::size_t latent_bytes = any->v_in_k_cache() ? any->cache_bytes() : any->v_cache_bytes();
      EXPECT_LE(static_cast<std::size_t>(any->v_offset(s, 0, any->latent_dim - 1) + 1) * kv_dtype_size(any->dtype),
                latent_bytes);
    }
  }
  EXPECT_GE(mla, 8);
  EXPECT_EQ(kinds.size(), 3u) << "K_AND_V, MLA_JOINT and MLA_SPLIT all drawn on MLA-shaped cases";
  EXPECT_EQ(latents.size(), 2u);
  // A kernel declaring MLA alone gets a write on MLA-shaped cases only.
  const std::uint32_t mla_only = (1u << ROPECHECK_KV_CACHE_MLA_JOINT) | (1u << ROPECHECK_KV_CACHE_MLA_SPLIT);
  for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    if (const auto w = kv_write_case(c, kPolicy, mla_only)) {
      EXPECT_TRUE(w->mla());
    }
  }
}

TEST(FusedCases, TheNormsWeightsAreStorageValuesInTheDeclaredForm) {
  const ropecheck_norm_policy_t gemma{sizeof(ropecheck_norm_policy_t), 1u << ROPECHECK_NORM_WEIGHT_ONE_PLUS_W,
                                      ROPECHECK_NORM_ROUND_AFTER_WEIGHT, 0u, 0.0};
  std::set<int> scales;
  for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    const QkNormCase n = qk_norm_case(c, gemma);
    EXPECT_EQ(n.form, ROPECHECK_NORM_WEIGHT_ONE_PLUS_W);
    EXPECT_TRUE(n.eps > 0);
    for (int w = 0; w < 2; ++w) {
      const auto& wt = n.weight[static_cast<std::size_t>(w)];
      EXPECT_EQ(wt.size(), (w == 0 || c.kv_heads > 0) ? static_cast<std::size_t>(c.shape.head_dim) : 0u);
      const ByteBuffer b = weight_bytes(c, n, w);
      for (std::size_t j = 0; j < wt.size(); ++j)
        EXPECT_EQ(load_as_double(b.data(), j, c.dtype), wt[j]) << "not a value of the storage dtype";
      for (int k : n.head_scale_log2[static_cast<std::size_t>(w)]) scales.insert(k);
    }
  }
  EXPECT_EQ(scales, (std::set<int>{0, 6, 10}));
}

TEST(FusedCases, TheExactNormAgreesWithTheFormulaInLongDouble) {
  const ropecheck_norm_policy_t both{sizeof(ropecheck_norm_policy_t), 3u, ROPECHECK_NORM_KEEP_F32, 0u, 0.0};
  for (int i = 0; i < 24; ++i) {
    const Case c = make_case(Suite::kQuick, 1, i);
    if (c.rotated_elements() > (1 << 14)) continue;
    const QkNormCase n = qk_norm_case(c, both);
    const QkBuffers in = inputs_for_norm(c, make_inputs(c), n);
    const NormedReference ref = normed_reference(c, in, n);
    const Geometry g = geometry(c);
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < c.q_heads; ++h) {
        long double sum = 0;
        for (int j = 0; j < c.shape.head_dim; ++j) {
          const long double x = load_as_double(in.bytes[0].data(), static_cast<std::size_t>(g.offset(0, t, h, j)), c.dtype);
          sum += x * x;
        }
        const long double r = 1.0L / std::sqrt(sum / c.shape.head_dim + static_cast<long double>(n.eps));
        for (int j = 0; j < c.shape.head_dim; ++j) {
          const std::int64_t off = g.offset(0, t, h, j);
          const long double x = load_as_double(in.bytes[0].data(), static_cast<std::size_t>(off), c.dtype);
          const long double w = n.weight[0][static_cast<std::size_t>(j)];
          const long double want = x * r * (n.form == ROPECHECK_NORM_WEIGHT_ONE_PLUS_W ? 1 + w : w);
          const double got = load_as_double(ref.normed.bytes[0].data(), static_cast<std::size_t>(off), ROPECHECK_DTYPE_F64);
          EXPECT_LE(std::fabs(static_cast<long double>(got) - want), 1e-14L * std::fabs(want) + 1e-300L)
              << c.describe() << " token " << t << " head " << h << " channel " << j;
        }
      }
  }
}

// What the quick suite's writes reach of each cache dtype (issue #48): for
// a kernel declaring every cache dtype, in each scale direction, the v its
// writes store lands on exact ties between two codes, past the largest
// finite value (saturation or overflow, as declared), and in the subnormal
// codes of every cache dtype that rounds (f16, bf16, e4m3fn, e5m2).
TEST(FusedCases, TheQuickSuitesWritesReachEveryBoundaryOfEveryCacheDtype) {
  for (ropecheck_kv_scale_direction_t dir : {ROPECHECK_KV_SCALE_DIVIDE, ROPECHECK_KV_SCALE_MULTIPLY}) {
    ropecheck_kv_policy_t policy = kPolicy;
    policy.scale_direction = dir;
    std::map<KvDtype, std::set<std::string>> reached;
    for (int i = 0; i < suite_size(Suite::kQuick); ++i) {
      const Case c = make_case(Suite::kQuick, 1, i);
      const std::optional<KvWriteCase> w = kv_write_case(c, policy, kAllKinds);
      if (!w || w->dtype == KvDtype::kF32) continue;
      const ByteBuffer v = make_kv_v(c, *w);
      const double top = cache_code_value(round_to_cache_code(HUGE_VAL, w->dtype, true), w->dtype);
      const double smallest_normal = cache_code_value(1u << (w->dtype == KvDtype::kF16    ? 10
                                                             : w->dtype == KvDtype::kBF16 ? 7
                                                             : w->dtype == KvDtype::kE4M3FN ? 3
                                                                                               : 2),
                                                      w->dtype);
      const std::int64_t per_token = static_cast<std::int64_t>(w->v_heads()) * w->v_channels();
      for (std::int64_t e = 0; e < c.tokens * per_token; ++e) {
        const double s = w->v_scale_of(static_cast<int>((e % per_token) / w->v_channels()));
        const double x = load_as_double(v.data(), static_cast<std::size_t>(e), c.dtype);
        const double y = std::fabs(dir == ROPECHECK_KV_SCALE_MULTIPLY ? x * s : x / s);
        if (y > top) reached[w->dtype].insert("past the largest finite");
        if (y > 0 && y < smallest_normal) reached[w->dtype].insert("subnormal");
        // An exact tie: y on no code, y's two neighbours equally far.
        const std::uint32_t code = round_to_cache_code(y, w->dtype, true);
        const double at = cache_code_value(code, w->dtype);
        const double other = at < y ? cache_code_value(code + 1, w->dtype) : cache_code_value(code - 1, w->dtype);
        if (y <= top && !exactly_equal(at, y) && exactly_equal(std::fabs(other - y), std::fabs(at - y)))
          reached[w->dtype].insert("tie");
      }
    }
    for (KvDtype d : {KvDtype::kF16, KvDtype::kBF16, KvDtype::kE4M3FN, KvDtype::kE5M2})
      for (const char* b : {"past the largest finite", "subnormal", "tie"})
        EXPECT_TRUE(reached[d].count(b)) << kv_dtype_name(d) << ": no write reaches " << b
                                         << (dir == ROPECHECK_KV_SCALE_MULTIPLY ? " (multiply)" : " (divide)");
  }
}

}  // namespace
}  // namespace ropecheck
