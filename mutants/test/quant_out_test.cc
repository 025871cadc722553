// SPDX-License-Identifier: MIT
// The quantized output (ABI 1.8): the correct kernel (quant_out_control,
// FlashInfer's arithmetic: the fp32 rotation times the scale, saturated to
// fp8) passes the whole quick gate with Rope/QuantizesTheRotatedQ judging
// most of its cases, in both fp8 formats; each catalogue row of the class
// QuantizedOutput fails that property; a table claiming the grant under an
// older minor version, or with a malformed policy, is refused by name; and
// the host's fp8 formula agrees with FlashInfer's saturation at the edges.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "core/kernel/impl_validation.h"
#include "gate/test/gate_run.h"
#include "impls/kernel_support/abi_check.h"
#include "mutants/mutant_kernel.h"
#include "mutants/quant_out_mutants.h"
#include "ropecheck/quant_out.h"

namespace ropecheck {
namespace {

TEST(QuantizedOutput, TheCorrectKernelPassesTheQuickGate) {
  const ropecheck_impl_t* k = mutant::quant_out_control();
  ASSERT_EQ(validate_impl_table(k), "");
  const GateRun g = run_quick_gate({k});
  EXPECT_TRUE(g.report.passed()) << g.text;
  const PropertyStats& s = property_stats(g.report.impls[0], "QuantizesTheRotatedQ");
  EXPECT_EQ(s.failed, 0) << g.text;
  // Every out-of-place case of the suite is judged (in place is declined).
  EXPECT_GT(s.passed, suite_size(Suite::kQuick) / 3) << g.text;
  std::cout << "QuantizesTheRotatedQ: " << s.passed << " passed, " << s.skipped << " skipped, worst "
            << s.worst_units << " of the budget\n";
  EXPECT_LE(s.worst_units, 1.0);
}

TEST(QuantizedOutput, EveryRowOfItsClassFailsTheProperty) {
  for (const mutant::BugInfo& b : mutant::kBugs) {
    if (std::string(b.bug_class) != "QuantizedOutput") continue;
    const ropecheck_impl_t* m = mutant::mutant_impl(b.bug);
    ASSERT_EQ(validate_impl_table(m), "") << b.name;
    const GateRun g = run_quick_gate({m}, std::nullopt, {"QuantizesTheRotatedQ"});
    const PropertyStats& s = property_stats(g.report.impls[0], "QuantizesTheRotatedQ");
    EXPECT_GT(s.failed, 0) << b.name << " survived:\n" << g.text;
    std::cout << b.name << ": failed " << s.failed << " of " << s.failed + s.passed << " judged cases\n";
  }
}

TEST(QuantizedOutput, AnOlderOrMalformedTableIsRefusedByName) {
  ropecheck_impl_t t = *mutant::quant_out_control();
  t.abi_minor = 7;
  EXPECT_NE(validate_impl_table(&t).find("QUANTIZED_OUTPUT (bit 22) needs abi_minor >= 8"), std::string::npos)
      << validate_impl_table(&t);
  t = *mutant::quant_out_control();
  t.quant_policy.dtypes = 1u << ROPECHECK_KV_F16;
  EXPECT_NE(validate_impl_table(&t).find("quant_policy.dtypes"), std::string::npos) << validate_impl_table(&t);
  t = *mutant::quant_out_control();
  t.caps.flags &= ~ROPECHECK_CAP_QUANTIZED_OUTPUT;
  EXPECT_NE(validate_impl_table(&t).find("quant_policy: set, but"), std::string::npos) << validate_impl_table(&t);
}

TEST(QuantizedOutput, ACallIsCheckedFieldByField) {
  const ropecheck_caps_t caps{sizeof(ropecheck_caps_t), 3u, 1u, 1u, 4096,
                              ROPECHECK_CAP_OUT_OF_PLACE | ROPECHECK_CAP_POS_INT64 | ROPECHECK_CAP_QUANTIZED_OUTPUT};
  float q_in[4] = {1, 2, 3, 4}, q_out[4];
  const std::int64_t pos[1] = {3};
  ropecheck_freq_spec_t f{};
  f.scheme = ROPECHECK_SCHEME_DEFAULT;
  f.base = 10000;
  f.factor = 1;
  ropecheck_quant_out_t qo{sizeof qo, ROPECHECK_KV_FP8_E4M3FN, 2.5f, 1.0f};
  ropecheck_apply_params_t p{};
  p.struct_size = sizeof p;
  p.num_tokens = 1;
  p.num_q_heads = 1;
  p.head_dim = p.rotary_dim = 4;
  p.q_in = q_in;
  p.q_out = q_out;
  p.q_token_stride = p.q_head_stride = 4;
  p.positions = pos;
  p.position_type = ROPECHECK_INDEX_INT64;
  p.freq = &f;
  p.quant_out = &qo;
  char err[256];
  EXPECT_EQ(impl::check_apply(caps, &p, err, sizeof err), ROPECHECK_OK) << err;
  qo.dtype = ROPECHECK_KV_BF16;
  EXPECT_EQ(impl::check_apply(caps, &p, err, sizeof err), ROPECHECK_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err).find("quant_out.dtype"), std::string::npos) << err;
  qo.dtype = ROPECHECK_KV_FP8_E5M2;
  qo.q_scale = 0;
  EXPECT_EQ(impl::check_apply(caps, &p, err, sizeof err), ROPECHECK_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err).find("quant_out.q_scale"), std::string::npos) << err;
  qo.q_scale = 1;
  ropecheck_caps_t plain = caps;
  plain.flags &= ~ROPECHECK_CAP_QUANTIZED_OUTPUT;
  EXPECT_EQ(impl::check_apply(plain, &p, err, sizeof err), ROPECHECK_UNSUPPORTED);
  EXPECT_NE(std::string(err).find("quant_out: a quantized output is not supported"), std::string::npos) << err;
  // A 1.7 host's params end before quant_out: never read.
  p.struct_size = ROPECHECK_APPLY_PARAMS_SIZE_1_7;
  EXPECT_EQ(impl::check_apply(plain, &p, err, sizeof err), ROPECHECK_OK) << err;
}

// FlashInfer multiplies, then casts with __NV_SATFINITE (pos_enc.cuh line
// 996, vec_dtypes.cuh lines 132 and 148): past the largest finite value the
// code is that value, never NaN or infinity; ties round to even.
TEST(QuantizedOutput, TheElementFormulaIsFlashInfersAtTheEdges) {
  const auto e4m3 = [](float x, float s) { return quantize_element(x, s, ROPECHECK_KV_SCALE_MULTIPLY, Fp8Format::kE4M3FN, true); };
  const auto e5m2 = [](float x, float s) { return quantize_element(x, s, ROPECHECK_KV_SCALE_MULTIPLY, Fp8Format::kE5M2, true); };
  EXPECT_EQ(e4m3(300.0f, 2.0f), 0x7e);   // 600 saturates to 448
  EXPECT_EQ(e4m3(-300.0f, 2.0f), 0xfe);  // and -448
  EXPECT_EQ(e5m2(40000.0f, 2.0f), 0x7b); // 80000 saturates to 57344
  EXPECT_EQ(e4m3(0.5f, 2.0f), 0x38);     // 1.0
  EXPECT_EQ(e4m3(0x1p-10f, 1.0f), 0x00); // half the smallest subnormal 2^-9: ties to even, zero
  EXPECT_EQ(e4m3(0x1p-9f, 1.0f), 0x01);  // the smallest subnormal
  // x / scale when a kernel declares DIVIDE.
  EXPECT_EQ(quantize_element(0.5f, 0.5f, ROPECHECK_KV_SCALE_DIVIDE, Fp8Format::kE4M3FN, true), 0x38);
}

}  // namespace
}  // namespace ropecheck
