// SPDX-License-Identifier: MIT
// Every built-in kernel answers a bad call with a status and a message that
// names the field, never with UB; a position outside the cos/sin cache is
// reported, not read.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/test/probe_kernel.h"
#include "impls/registry.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {
namespace {

// A call in place on two tokens of one q and one k head (head_dim 64,
// core/test/probe_kernel.h's OneHeadCall), with a cos/sin cache of 8 rows.
struct Call {
  std::vector<float> q = std::vector<float>(2 * 64, 0.5f);
  std::vector<float> k = std::vector<float>(2 * 64, 0.25f);
  std::vector<std::int64_t> pos = {3, 5};
  std::vector<float> cache = std::vector<float>(8 * 64, 0.0f);
  test::OneHeadCall call{2, 64, pos.data(), q.data(), q.data(), k.data(), k.data()};
  ropecheck_freq_spec_t& freq = call.f;
  ropecheck_apply_params_t& p = call.p;
  std::vector<std::int32_t> sections;
  // p points into this object's own members: a copy would point into the original.
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  // A multi-axis call (ABI 1.3) over the same two tokens: every axis row is
  // pos (stride num_tokens), the assignment with `counts`.
  void axes(int n, std::vector<std::int32_t> counts, unsigned assignment = ROPECHECK_AXES_SECTIONS) {
    sections = std::move(counts);
    pos.assign(static_cast<std::size_t>(2 * n), 3);
    p.positions = pos.data();
    p.num_axes = n;
    p.axis_assignment = assignment;
    p.position_axis_stride = 2;
    p.axis_sections = sections.data();
  }
  Call() {
    p.layout = ROPECHECK_LAYOUT_INTERLEAVED;
    p.cos_sin_cache = cache.data();
    p.cache_dtype = ROPECHECK_DTYPE_F32;
    p.cache_max_position = 8;
  }
};

std::string apply(const ropecheck_impl_t* impl, Call& c, ropecheck_status_t* st) {
  char err[256] = {0};
  *st = impl->apply(impl->ctx, &c.p, err, sizeof err);
  return err;
}

TEST(ImplAbi, RegistryListsTheScalarSimdAndFusedKernels) {
  std::vector<std::string> names;
  for (const auto* impl : builtin_impls()) {
    names.push_back(impl->name);
    EXPECT_EQ(impl->abi_version, ROPECHECK_ABI_VERSION);
    EXPECT_EQ(impl->struct_size, sizeof(ropecheck_impl_t));
    EXPECT_NE(impl->apply, nullptr);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"scalar_naive", "scalar_rotate_half", "scalar_complex",
                                             "scalar_cached", "simd_cache", "simd_otf", "scalar_fused_kv_vllm",
                                             "scalar_fused_qk_norm_vllm"}));
  EXPECT_EQ(find_impl("nope"), nullptr);
}

TEST(ImplAbi, BadCallsGetAStatusNamingTheField) {
  struct BadCall {
    const char* what;
    void (*mutate)(Call&);
    const char* field;
  };
  const BadCall bad[] = {
      {"null params freq", [](Call& c) { c.p.freq = nullptr; }, "freq"},
      {"odd rotary", [](Call& c) { c.p.rotary_dim = 63; }, "rotary_dim"},
      {"rotary > head", [](Call& c) { c.p.rotary_dim = 66; }, "rotary_dim"},
      {"head_dim 0", [](Call& c) { c.p.head_dim = 0; }, "head_dim"},
      {"null q", [](Call& c) { c.p.q_in = nullptr; }, "q_in"},
      {"null positions", [](Call& c) { c.p.positions = nullptr; }, "positions"},
      {"base 1", [](Call& c) { c.freq.base = 1.0; }, "freq.base"},
      {"GQA", [](Call& c) { c.p.num_q_heads = 3; c.p.num_kv_heads = 2; }, "num_q_heads"},
      {"struct size", [](Call& c) { c.p.struct_size = 8; }, "struct_size"},
      {"bad dtype", [](Call& c) { c.p.dtype = 99; }, "dtype"},
      {"short stride", [](Call& c) { c.p.q_token_stride = 10; }, "q_token_stride"},
      // ABI 1.3 multi-axis fields: a kernel granting them names the field, one
      // without them declines (UNSUPPORTED naming the assignment).
      {"sections not summing", [](Call& c) { c.axes(2, {10, 10}); }, "axis_sections"},
      {"interleaved overflow", [](Call& c) { c.axes(3, {2, 30, 0}, ROPECHECK_AXES_INTERLEAVED); }, "axis_sections[1]"},
      {"too many axes", [](Call& c) { c.axes(9, {32, 0, 0, 0, 0, 0, 0, 0, 0}); }, "num_axes"},
      {"bad assignment", [](Call& c) { c.axes(2, {16, 16}, 7); }, "axis_assignment"},
  };
  for (const auto* impl : builtin_impls()) {
    for (const BadCall& b : bad) {
      Call c;
      if (std::string(b.field) == "freq" || std::string(b.field) == "freq.base") {
        // A cache kernel never reads the frequency spec in apply.
        if (impl->caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) continue;
      }
      b.mutate(c);
      ropecheck_status_t st;
      const std::string msg = apply(impl, c, &st);
      EXPECT_NE(st, ROPECHECK_OK) << impl->name << ": " << b.what;
      const bool multi = std::string(b.field).rfind("axis", 0) == 0 || std::string(b.field) == "num_axes";
      if (multi && !(impl->caps.flags & ROPECHECK_CAP_AXES_SECTIONS)) continue;  // declined: checked below
      EXPECT_NE(msg.find(b.field), std::string::npos) << impl->name << ": " << b.what << " -> " << msg;
    }
  }
}

// ABI 1.5's qk-norm: a kernel not granting QK_NORM declines a call that
// carries one (UNSUPPORTED, naming it); one granting it names a bad field.
TEST(ImplAbi, AQkNormIsDeclinedWithoutTheGrantAndABadOneNamed) {
  std::vector<float> w(64, 1.0f);
  ropecheck_qk_norm_t qn{sizeof(ropecheck_qk_norm_t), ROPECHECK_NORM_WEIGHT_W, 1e-6f, 0u, w.data(), w.data()};
  ropecheck_status_t st;
  for (const auto* impl : builtin_impls()) {
    Call c;
    c.p.qk_norm = &qn;
    const std::string msg = apply(impl, c, &st);
    if (!(impl->caps.flags & ROPECHECK_CAP_QK_NORM)) {
      EXPECT_EQ(st, ROPECHECK_UNSUPPORTED) << impl->name << ": " << msg;
      EXPECT_NE(msg.find("qk_norm"), std::string::npos) << impl->name << ": " << msg;
      continue;
    }
    EXPECT_EQ(st, ROPECHECK_OK) << impl->name << ": " << msg;
    for (const auto& [field, mutate] :
         std::initializer_list<std::pair<const char*, void (*)(ropecheck_qk_norm_t&)>>{
             {"qk_norm.eps", [](ropecheck_qk_norm_t& q) { q.eps = 0.0f; }},
             {"qk_norm.weight_form", [](ropecheck_qk_norm_t& q) { q.weight_form = 2; }},
             {"qk_norm.q_weight", [](ropecheck_qk_norm_t& q) { q.q_weight = nullptr; }},
             {"qk_norm.k_weight", [](ropecheck_qk_norm_t& q) { q.k_weight = nullptr; }}}) {
      ropecheck_qk_norm_t bad = qn;
      mutate(bad);
      Call b;
      b.p.qk_norm = &bad;
      const std::string m = apply(impl, b, &st);
      EXPECT_EQ(st, ROPECHECK_INVALID_ARGUMENT) << impl->name << " " << field << ": " << m;
      EXPECT_NE(m.find(field), std::string::npos) << impl->name << ": " << m;
    }
  }
}

TEST(ImplAbi, CacheKernelReportsPositionsOutsideTheCache) {
  for (const char* name : {"scalar_cached", "simd_cache", "scalar_caller_cache"}) {
  const ropecheck_impl_t* impl = find_impl(name);
  ASSERT_NE(impl, nullptr);
  Call c;
  c.pos = {3, 8};  // 8 rows: position 8 is one past the end
  c.p.positions = c.pos.data();
  ropecheck_status_t st;
  const std::string msg = apply(impl, c, &st);
  EXPECT_EQ(st, ROPECHECK_POSITION_OUT_OF_RANGE) << msg;
  EXPECT_NE(msg.find("positions[1]"), std::string::npos) << msg;
  c.pos = {-1, 0};
  EXPECT_EQ((apply(impl, c, &st), st), ROPECHECK_POSITION_OUT_OF_RANGE);
  EXPECT_EQ(c.q[0], 0.5f) << "nothing written on a rejected call";
  }
}

// ABI 1.6: scalar_caller_cache reads an fp32 cache or one in the q/k dtype
// (its cos_sin_cache_dtypes), each converted exactly; any other is declined
// naming cache_dtype.
TEST(ImplAbi, TheCallersCacheIsReadInTheDtypesTheKernelDeclares) {
  const ropecheck_impl_t* impl = find_impl("scalar_caller_cache");
  ASSERT_NE(impl, nullptr);
  EXPECT_EQ(impl->cos_sin_cache_dtypes, (1u << ROPECHECK_DTYPE_F32) | ROPECHECK_COS_SIN_CACHE_OF_STORAGE);
  ropecheck_status_t st;
  Call f32;  // rows 3 and 5: cos 1, sin 0 (a rotation by 0) in fp32
  for (const int r : {3, 5}) f32.cache[static_cast<std::size_t>(r * 64)] = 1.0f;
  for (int j = 1; j < 32; ++j) f32.cache[static_cast<std::size_t>(3 * 64 + j)] = f32.cache[static_cast<std::size_t>(5 * 64 + j)] = 1.0f;
  EXPECT_EQ((apply(impl, f32, &st), st), ROPECHECK_OK);
  EXPECT_EQ(f32.q[0], 0.5f);
  Call f16;  // an fp16 cache with fp32 q: neither fp32 nor the q/k dtype
  f16.p.cache_dtype = ROPECHECK_DTYPE_F16;
  const std::string msg = apply(impl, f16, &st);
  EXPECT_EQ(st, ROPECHECK_UNSUPPORTED) << msg;
  EXPECT_NE(msg.find("cache_dtype"), std::string::npos) << msg;
  Call bf16;  // a bf16 cache (1.0 is 0x3f80) with bf16 q: the q/k dtype's
  std::vector<std::uint16_t> q(2 * 64, 0x3f00), k(2 * 64, 0x3e80), cache(8 * 64, 0);
  for (const int r : {3, 5})
    for (int j = 0; j < 32; ++j) cache[static_cast<std::size_t>(r * 64 + j)] = 0x3f80;
  bf16.p.dtype = bf16.p.cache_dtype = ROPECHECK_DTYPE_BF16;
  bf16.p.q_in = bf16.p.q_out = q.data();
  bf16.p.k_in = bf16.p.k_out = k.data();
  bf16.p.cos_sin_cache = cache.data();
  EXPECT_EQ((apply(impl, bf16, &st), st), ROPECHECK_OK);
  EXPECT_EQ(q[0], 0x3f00);  // 0.5 rotated by 0
}

TEST(ImplAbi, MultiAxisCallsAreDeclinedWithoutTheGrantAndStrideChecked) {
  for (const auto* impl : builtin_impls()) {
    Call c;
    c.axes(3, {16, 8, 8});
    ropecheck_status_t st;
    std::string msg = apply(impl, c, &st);
    if (!(impl->caps.flags & ROPECHECK_CAP_AXES_SECTIONS)) {
      EXPECT_EQ(st, ROPECHECK_UNSUPPORTED) << impl->name << ": " << msg;
      EXPECT_NE(msg.find("axis_assignment"), std::string::npos) << msg;
      continue;
    }
    EXPECT_EQ(st, ROPECHECK_OK) << impl->name << ": " << msg;
    Call overlapping;  // a fresh call: a Call points into itself, so it is never copied
    overlapping.axes(3, {16, 8, 8});
    overlapping.p.position_axis_stride = 1;  // rows overlapping
    msg = apply(impl, overlapping, &st);
    EXPECT_EQ(st, ROPECHECK_INVALID_ARGUMENT) << impl->name;
    EXPECT_NE(msg.find("position_axis_stride"), std::string::npos) << msg;
  }
}

TEST(ImplAbi, ComplexKernelDeclinesHalfSplit) {
  const ropecheck_impl_t* impl = find_impl("scalar_complex");
  ASSERT_NE(impl, nullptr);
  Call c;
  c.p.layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  ropecheck_status_t st;
  const std::string msg = apply(impl, c, &st);
  EXPECT_EQ(st, ROPECHECK_UNSUPPORTED) << msg;
}

TEST(ImplAbi, ZeroTokensIsANoOp) {
  for (const auto* impl : builtin_impls()) {
    Call c;
    c.p.num_tokens = 0;
    ropecheck_status_t st;
    EXPECT_EQ((apply(impl, c, &st), st), ROPECHECK_OK) << impl->name;
  }
}

}  // namespace
}  // namespace ropecheck

#include "core/kernel/impl_validation.h"

namespace ropecheck {
namespace {

TEST(ImplAbi, EveryBuiltinTablePassesValidation) {
  for (const auto* impl : builtin_impls()) EXPECT_EQ(validate_impl_table(impl), "") << impl->name;
}

TEST(ImplAbi, ValidationNamesTheFieldOfABadTable) {
  ropecheck_impl_t t = *find_impl("scalar_cached");
  t.build_cache = nullptr;
  EXPECT_NE(validate_impl_table(&t).find("build_cache"), std::string::npos);
  t = *find_impl("scalar_naive");
  t.abi_version = 99;
  EXPECT_NE(validate_impl_table(&t).find("abi_version"), std::string::npos);
  t = *find_impl("scalar_naive");
  t.name = "Bad Name";
  EXPECT_NE(validate_impl_table(&t).find("name"), std::string::npos);
  t = *find_impl("scalar_naive");
  t.caps.max_head_dim = 0;
  EXPECT_NE(validate_impl_table(&t).find("caps.max_head_dim"), std::string::npos);
}

}  // namespace
}  // namespace ropecheck
