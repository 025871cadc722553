// SPDX-License-Identifier: MIT
// The vector KV-cache stores of simd_fused_kv_vllm (impls/simd/
// simd_kv_store-inl.h, simd_fp8-inl.h) on every Highway target the kernels
// were compiled for that this CPU supports (the target as the gtest
// parameter, by name): each stored element must have exactly the bits of
// impls/kernel_support/kv_store.h's store_kv(cache, i, dtype, x / scale,
// true), the scalar fused kernels' store (fp8 through ropecheck/fp8.h's
// f32_to_fp8), for
//   - every fp32 bit pattern class: every high half (sign, exponent, the top
//     7 mantissa bits: every rounding point of fp8 and bf16, normal or
//     subnormal) with low halves around the rounding points of fp16 (bit 13
//     and up) and bf16 (bit 16), zero, all ones and a drawn one: zeros,
//     fp32 subnormals, fp8 subnormals and the carry into the normals, ties,
//     the largest finite codes and every overflow, infinities, NaNs;
//   - random fp32 bits with the scales of the gate's cases and others;
//   - every fp16 and bf16 pattern as the stored k (widened, then scaled);
//   - rows of every length up to two vectors of the widest target, at odd
//     offsets, so every tail length runs.
// ROPECHECK_FP8_EXHAUSTIVE=1 adds every one of the 2^32 fp32 patterns against
// f32_to_fp8 in both fp8 formats (minutes per target).
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "impls/kernel_support/head_io.h"
#include "impls/kernel_support/kv_store.h"
#include "impls/simd/simd_impls.h"
#include "impls/test/simd_target_param.h"
#include "ropecheck/dtype.h"
#include "ropecheck/fp8.h"
#include "ropecheck/kv_write.h"

namespace ropecheck {
namespace {

constexpr std::uint32_t kCacheDtypes[] = {ROPECHECK_KV_F32, ROPECHECK_KV_F16, ROPECHECK_KV_BF16,
                                          ROPECHECK_KV_FP8_E4M3FN, ROPECHECK_KV_FP8_E5M2};
const char* cache_name(std::uint32_t d) {
  static const char* const kNames[] = {"fp32", "fp16", "bf16", "fp8 e4m3fn", "fp8 e5m2"};
  return kNames[d];
}

// The gate's dequantization scales (core/cases/kv_write_case.cc) and their
// reciprocals, 1, and a few whose quotients land on other rounding points.
constexpr float kScales[] = {1.0f, 0.7f, 1.3f, 0.0625f, 0.01f, 1 / 0.7f, 1 / 1.3f, 16.0f, 100.0f, 3e-3f, 8.0f, 0.37f};

std::uint32_t xorshift(std::uint32_t& s) {
  s ^= s << 13, s ^= s >> 17, s ^= s << 5;
  return s;
}

// Every high half with the low halves named in the file comment.
std::vector<std::uint32_t> fp32_classes() {
  static constexpr std::uint32_t kLow[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x2000, 0x3000, 0x4000,
                                           0x6000, 0x7fff, 0x8000, 0x8001, 0xc000, 0xffff};
  std::vector<std::uint32_t> v;
  std::uint32_t drawn = 0x9e3779b9u;
  for (std::uint32_t high = 0; high < (1u << 16); ++high) {
    for (std::uint32_t low : kLow) v.push_back(high << 16 | low);
    v.push_back(high << 16 | (xorshift(drawn) & 0xffffu));
  }
  v.push_back(0x3f800000u);  // an odd count: the row ends in a tail on every target
  return v;
}

// src holds n elements of q/k dtype `dtype`; compares the vector row with
// store_kv of each element divided by `scale` in fp32. Returns the mismatches
// (the first few reported).
int compare_row(const void* src, std::uint32_t dtype, int n, float scale, std::uint32_t cache, const char* what) {
  const std::size_t es = kv_dtype_size(cache);
  std::vector<unsigned char> got(static_cast<std::size_t>(n) * es + 64, 0xa5), want(static_cast<std::size_t>(n) * es);
  impl::simd_kv_cache_row(src, dtype, n, scale, got.data(), cache);
  const volatile float vs = scale;  // a division the compiler cannot fold (x / 1 would drop sNaN quieting)
  for (int i = 0; i < n; ++i) impl::store_kv(want.data(), i, cache, impl::load_f32(src, i, dtype) / vs, true);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (std::memcmp(got.data() + i * es, want.data() + i * es, es) == 0) continue;
    if (++wrong <= 5) {
      std::uint32_t g = 0, w = 0;
      std::memcpy(&g, got.data() + i * es, es);
      std::memcpy(&w, want.data() + i * es, es);
      std::uint32_t in = 0;
      std::memcpy(&in, static_cast<const unsigned char*>(src) + i * (dtype == ROPECHECK_DTYPE_F32 ? 4 : 2),
                  dtype == ROPECHECK_DTYPE_F32 ? 4 : 2);
      ADD_FAILURE() << what << ", " << cache_name(cache) << ", scale " << scale << ": input 0x" << std::hex << in
                    << " stored as 0x" << g << ", store_kv gives 0x" << w;
    }
  }
  EXPECT_EQ(std::memcmp(got.data() + n * es, std::vector<unsigned char>(64, 0xa5).data(), 64), 0)
      << what << ": wrote past the row";
  return wrong;
}

class SimdKvStore : public SimdTargetTest {
 protected:
  void SetUp() override {
    SimdTargetTest::SetUp();
    const ropecheck_impl_t* k = impl::simd_fused_kv_vllm_impl();
    ASSERT_STREQ(k->target(k->ctx), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  }
};
ROPECHECK_SIMD_TARGETS_INSTANTIATE(SimdKvStore);

TEST_P(SimdKvStore, EveryFp32ClassStoresAsTheScalarStoreInEveryCacheDtype) {
  const std::vector<std::uint32_t> bits = fp32_classes();
  for (std::uint32_t cache : kCacheDtypes)
    EXPECT_EQ(compare_row(bits.data(), ROPECHECK_DTYPE_F32, static_cast<int>(bits.size()), 1.0f, cache,
                          hwy::TargetName(GetParam())),
              0)
        << "of " << bits.size() << " fp32 patterns";
}

TEST_P(SimdKvStore, RandomFp32BitsAndScalesStoreAsTheScalarStore) {
  std::uint32_t s = 0x12345678u;
  std::vector<std::uint32_t> bits((1u << 16) + 5);
  for (float scale : kScales) {
    for (std::uint32_t& b : bits) b = xorshift(s);
    // Also values of the size a rotated k has, where the codes are dense.
    for (std::size_t i = 0; i < bits.size(); i += 2)
      bits[i] = f32_bits(static_cast<float>(static_cast<std::int32_t>(bits[i])) * 0x1p-29f);
    for (std::uint32_t cache : kCacheDtypes)
      EXPECT_EQ(compare_row(bits.data(), ROPECHECK_DTYPE_F32, static_cast<int>(bits.size()), scale, cache,
                            hwy::TargetName(GetParam())),
                0);
  }
}

// The stored k of a 16-bit q/k dtype: every pattern widened exactly, then
// scaled and rounded.
TEST_P(SimdKvStore, EveryF16AndBf16StoredValueStoresAsTheScalarStore) {
  std::vector<std::uint16_t> all((1u << 16) + 3);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i);
  for (std::uint32_t dtype : {ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16})
    for (float scale : kScales)
      for (std::uint32_t cache : kCacheDtypes)
        EXPECT_EQ(compare_row(all.data(), dtype, static_cast<int>(all.size()), scale, cache,
                              dtype == ROPECHECK_DTYPE_F16 ? "fp16 k" : "bf16 k"),
                  0);
}

// Rows of every length from 1 to 130 (two vectors of AVX-512 and more), at
// odd element offsets: whole vectors and every tail length.
TEST_P(SimdKvStore, EveryRowLengthAndOffset) {
  std::uint32_t s = 0xdeadbeefu;
  std::vector<float> v(300);
  for (float& x : v) x = static_cast<float>(static_cast<std::int32_t>(xorshift(s))) * 0x1p-27f;
  for (int n = 1; n <= 130; ++n)
    for (int off : {0, 1, 3})
      for (std::uint32_t cache : kCacheDtypes)
        ASSERT_EQ(compare_row(v.data() + off, ROPECHECK_DTYPE_F32, n, 0.7f, cache, "row"), 0)
            << "length " << n << " offset " << off;
}

// Every fp32 pattern, both fp8 formats, against ropecheck/fp8.h directly
// (scale 1: x / 1 is x for every non-NaN, and every NaN has one fp8 code).
TEST_P(SimdKvStore, EveryFp32PatternToFp8WhenAsked) {
  const char* env = std::getenv("ROPECHECK_FP8_EXHAUSTIVE");
  if (env == nullptr || std::string(env) != "1") GTEST_SKIP() << "set ROPECHECK_FP8_EXHAUSTIVE=1 for all 2^32 patterns";
  constexpr std::uint32_t kChunk = 1u << 20;
  std::vector<std::uint32_t> bits(kChunk);
  std::vector<std::uint8_t> got(kChunk);
  for (std::uint32_t cache : {ROPECHECK_KV_FP8_E4M3FN, ROPECHECK_KV_FP8_E5M2}) {
    const Fp8Format f = cache == ROPECHECK_KV_FP8_E4M3FN ? Fp8Format::kE4M3FN : Fp8Format::kE5M2;
    std::uint64_t wrong = 0;
    for (std::uint64_t base = 0; base < (1ull << 32); base += kChunk) {
      for (std::uint32_t i = 0; i < kChunk; ++i) bits[i] = static_cast<std::uint32_t>(base) + i;
      impl::simd_kv_cache_row(bits.data(), ROPECHECK_DTYPE_F32, static_cast<int>(kChunk), 1.0f, got.data(), cache);
      for (std::uint32_t i = 0; i < kChunk; ++i)
        if (got[i] != f32_to_fp8(f32_from_bits(bits[i]), f, true) && ++wrong <= 5)
          ADD_FAILURE() << cache_name(cache) << ": 0x" << std::hex << bits[i] << " gave 0x" << int{got[i]};
    }
    EXPECT_EQ(wrong, 0u) << cache_name(cache);
    std::printf("%s, %s: all 2^32 fp32 patterns, %llu different from f32_to_fp8\n", hwy::TargetName(GetParam()),
                cache_name(cache), static_cast<unsigned long long>(wrong));
  }
}

}  // namespace
}  // namespace ropecheck
