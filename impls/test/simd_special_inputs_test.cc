// SPDX-License-Identifier: MIT
// The SIMD kernels on non-finite and extreme inputs, on every Highway target
// this CPU supports that the kernels were compiled for (the target as the
// gtest parameter, by name), judged by the gate's judge against the
// reference: every Inf and NaN bit pattern of fp16 and bf16 (both signs,
// every payload), fp32's infinities and a spread of its NaN payloads, and
// fp16's largest finite value (65504, the exponent just below Inf's), mixed
// with drawn finite values so a pair holds special/special and special/finite.
// (fp32's and bf16's largest values are left out: next to an infinity, m c x
// may overflow fp32 and inf - inf give NaN where the exact result is an
// infinity; such inputs lie outside the error model's overflow-free domain,
// docs/ERROR_MODEL.md, "Non-finite and huge inputs".)
//
// The suites draw finite inputs only (core/cases/cases.cc, draw_input), so before
// this test only the differential fuzzer fed these, and it runs the target the
// dispatcher picks (AVX3 here). Highway 1.0.3 widens fp16 by an emulation on
// every x86 target without F16C (SSSE3, SSE4) and on SCALAR and EMU128, and
// that emulation turns exponent 31 into 2^16 (1 + m / 1024): Inf and NaN came
// out as finite numbers (simd_storage-inl.h, LoadWide; issue #23).
#include <gtest/gtest.h>

#include <hwy/targets.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/cases/axis_cases.h"
#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/judge/judge.h"
#include "core/kernel/kernel_call.h"
#include "core/judge/reference_result.h"
#include "impls/simd/simd_impls.h"
#include "impls/test/simd_target_param.h"
#include "ropecheck/dtype.h"

namespace ropecheck {
namespace {

// The special bit patterns of a storage dtype.
std::vector<std::uint32_t> special_bits(ropecheck_dtype_t dtype) {
  std::vector<std::uint32_t> v;
  if (dtype == ROPECHECK_DTYPE_F32) {
    for (std::uint32_t sign : {0u, 0x80000000u}) {
      v.push_back(sign | 0x7f800000u);  // Inf
      v.push_back(sign | 0x7fffffffu);  // every payload bit
      for (int b = 0; b < 23; ++b) v.push_back(sign | 0x7f800000u | (1u << b));  // quiet and signalling NaNs
    }
    return v;
  }
  // fp16: exponent 0x7c00, 10 mantissa bits; bf16: 0x7f80, 7 bits.
  const bool f16 = dtype == ROPECHECK_DTYPE_F16;
  const std::uint32_t exp = f16 ? 0x7c00u : 0x7f80u, mant = f16 ? 0x400u : 0x80u;
  for (std::uint32_t sign : {0u, 0x8000u}) {
    for (std::uint32_t m = 0; m < mant; ++m) v.push_back(sign | exp | m);  // Inf, then every NaN
    if (f16) v.push_back(sign | (exp - 1));                                // 65504, exponent 30
  }
  return v;
}

void store_bits(unsigned char* base, std::int64_t i, ropecheck_dtype_t dtype, std::uint32_t bits) {
  if (dtype == ROPECHECK_DTYPE_F32) {
    std::memcpy(base + 4 * i, &bits, 4);
  } else {
    const std::uint16_t h = static_cast<std::uint16_t>(bits);
    std::memcpy(base + 2 * i, &h, 2);
  }
}

// One case of `dtype` and `layout` whose elements take the special patterns
// in turn, two elements in three (the third keeps its drawn finite value),
// starting at pattern `first`; returns the pattern after the last one used.
std::size_t fill_specials(const Case& c, QkBuffers& in, const std::vector<std::uint32_t>& bits, std::size_t first) {
  const Geometry g = geometry(c);
  std::size_t next = first;
  std::int64_t n = 0;
  for (int w = 0; w < 2; ++w)
    for (std::int64_t t = 0; t < c.tokens; ++t)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = 0; j < g.head_dim; ++j)
          if (n++ % 3 != 2) store_bits(in.bytes[w].data(), g.offset(w, t, h, j), c.dtype, bits[next++ % bits.size()]);
  return next;
}

class SimdSpecialInputs : public SimdTargetTest {};
ROPECHECK_SIMD_TARGETS_INSTANTIATE(SimdSpecialInputs);

TEST_P(SimdSpecialInputs, NonFiniteInputsLikeTheReferenceOnThisTarget) {
  ASSERT_STREQ(impl::simd_target_name(), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  int index = 0, judged = 0;
  for (ropecheck_dtype_t dtype : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F16, ROPECHECK_DTYPE_BF16})
    for (ropecheck_layout_t layout : {ROPECHECK_LAYOUT_HALF_SPLIT, ROPECHECK_LAYOUT_INTERLEAVED}) {
      const std::vector<std::uint32_t> bits = special_bits(dtype);
      // Cases until every pattern was used once: 130 channels (2 pass
      // through, 64 pairs: whole vectors and a tail on every target).
      for (std::size_t used = 0; used < bits.size();) {
        Case c = make_case(Suite::kQuick, 23, index++);
        keep_first_axis(&c);  // 1D: the test sets the positions
        c.shape.head_dim = 130;
        c.shape.rotary_dim = 128;
        c.dtype = dtype;
        c.layout = layout;
        c.tokens = 2;
        c.q_heads = 4;
        c.kv_heads = 2;
        c.positions = {1, 4097};
        c.in_place = index % 2 == 0;
        Rng rng(23, static_cast<std::uint64_t>(index));
        c.freq = draw_scheme(rng, c.shape.rotary_dim, static_cast<ropecheck_scheme_t>(c.freq.scheme));
        QkBuffers in = make_inputs(c);
        used = fill_specials(c, in, bits, used);
        const ReferenceResult ref = compute_reference(c, in);
        for (const ropecheck_impl_t* k : {impl::simd_cache_impl(), impl::simd_otf_impl()}) {
          ASSERT_EQ(outside_capabilities(*k, c), "") << k->name;
          const CaseOutcome out = judge(*k, {.c = c, .in = in, .ref = ref}, call_kernel(*k, c, in));
          ++judged;
          EXPECT_EQ(out.outcome, Outcome::kPass) << k->name << " on " << hwy::TargetName(GetParam()) << ": "
                                                 << c.describe() << "\n"
                                                 << out.message;
        }
      }
    }
  EXPECT_GE(judged, 2 * 6);
}

// Every fp16 bit pattern widens to exactly ropecheck::f16_to_f32's fp32 bits
// (finite values exactly, Inf as Inf, each NaN with its payload, quieted),
// through whole vectors and the one-lane tails alike.
TEST_P(SimdSpecialInputs, EveryF16WidensExactlyOnThisTarget) {
  ASSERT_STREQ(impl::simd_target_name(), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  constexpr int kAll = 1 << 16;
  std::vector<std::uint16_t> in(kAll + 3);  // + 3: a tail on every target
  for (int i = 0; i < kAll + 3; ++i) in[i] = static_cast<std::uint16_t>(i);
  std::vector<float> out(in.size());
  impl::simd_widen_f16(in.data(), static_cast<int>(in.size()), out.data());
  int wrong = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint32_t want = f32_bits(f16_to_f32(in[i])), got = f32_bits(out[i]);
    if (got != want && ++wrong <= 5)
      ADD_FAILURE() << hwy::TargetName(GetParam()) << ": fp16 0x" << std::hex << in[i] << " widened to 0x" << got
                    << ", f16_to_f32 gives 0x" << want;
  }
  EXPECT_EQ(wrong, 0);
}

// Every bf16 result, each reached from below and above its neighbours: the
// fp32 values with every high half and the low halves around the rounding
// boundary (0x7fff, 0x8000, 0x8001: ties go to even) and at the ends, plus
// a drawn one, narrow to exactly ropecheck::f32_to_bf16's bits (carries into
// the exponent, to infinity, subnormals, signed zeros), through whole vectors
// and one-pair tails alike. NaNs only as the bf16 loops can meet them
// (simd_storage-inl.h, RoundToBf16Bits): quiet, low half zero.
TEST_P(SimdSpecialInputs, EveryBf16RoundsToNearestEvenOnThisTarget) {
  ASSERT_STREQ(impl::simd_target_name(), hwy::TargetName(GetParam())) << "the dispatcher did not switch target";
  std::vector<float> in;
  std::uint32_t drawn = 0x9e3779b9u;
  for (std::uint32_t high = 0; high < (1u << 16); ++high)
    for (std::uint32_t low : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xfffeu, 0xffffu, 0x10000u}) {
      if (low == 0x10000u) {  // a drawn low half (xorshift32)
        drawn ^= drawn << 13, drawn ^= drawn >> 17, drawn ^= drawn << 5;
        low = drawn & 0xffffu;
      }
      const std::uint32_t bits = high << 16 | low;
      const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;
      if (nan && (low != 0 || (bits & 0x00400000u) == 0)) continue;
      in.push_back(f32_from_bits(bits));
    }
  // Padded to 63 mod 64 pairs: every target of 4 to 64 lanes ends with a
  // tail of one pair less than a whole vector.
  for (float v = 1.0f; in.size() % 2 != 0 || in.size() / 2 % 64 != 63; v = -v * 1.5f) in.push_back(v);
  std::vector<std::uint16_t> out(in.size());
  impl::simd_narrow_bf16(in.data(), static_cast<int>(in.size()), out.data());
  int wrong = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint16_t want = f32_to_bf16(in[i]);
    if (out[i] != want && ++wrong <= 5)
      ADD_FAILURE() << hwy::TargetName(GetParam()) << ": fp32 0x" << std::hex << f32_bits(in[i])
                    << " narrowed to bf16 0x" << out[i] << ", f32_to_bf16 gives 0x" << want;
  }
  EXPECT_EQ(wrong, 0) << "of " << in.size();
}

}  // namespace
}  // namespace ropecheck
