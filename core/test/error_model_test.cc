// Properties of the error model itself: the budget of a correct fp32-product
// kernel grows with |p w| as derived, a bf16 angle would exceed it, pair 0's
// frequency is exact, the budget near position 0 is a few ulps, the new
// policies budget what they declare, and bad policies are refused.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error_model/error_model.h"
#include "ropecheck/numbers.h"
#include "ropecheck/policy.h"

namespace ropecheck {
namespace {

ropecheck_policy_t f32_policy() {
  return libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32);
}
Policy hf_eager() {
  return libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_OF_STORAGE,
                     ROPECHECK_DTYPE_OF_STORAGE);
}

ElementTerms terms(std::int64_t p, double w, int pair, double x = 1.0, double y = 0.5) {
  const double a = static_cast<double>(p) * w;
  const double c = std::cos(a), s = std::sin(a);
  return pair_terms(x, y, x * c - y * s, x * s + y * c, c, s, std::fabs(a), p, pair)[0];
}

TEST(ErrorModel, AngleBudgetGrowsWithPositionForAnFp32Product) {
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  const double w1 = std::pow(10000.0, -2.0 / 128);
  const double e10 = m.angle_error(terms(1 << 10, w1, 1));
  const double e20 = m.angle_error(terms(1 << 20, w1, 1));
  EXPECT_NEAR(e20 / e10, 1024.0, 1.0);
  // At p = 2^20 with w_1 ~ 0.87 the fp32 product alone rounds by up to half
  // an fp32 ulp of 2^19.8, 2^-5 rad; the bound is (C_1 + 1) u |a|, C_1 =
  // (2/128)(ln 1e4 + 1) + 4: 5.2 u of 9.1e5, 0.28 rad.
  EXPECT_GT(e20, 0x1p-5);
  EXPECT_LT(e20, 0.3);
}

TEST(ErrorModel, PairZeroOfThePowerFormulaIsExact) {
  // w_0 = 1 / b^0 = 1 exactly, and fl32(fl32(p) * 1) = fl32(p): the angle of
  // pair 0 is exact below 2^24 and off by the position's rounding above.
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  EXPECT_EQ(m.angle_error(terms(1 << 20, 1.0, 0)), 0.0);
  const double p = 0x1p24 + 1;
  EXPECT_NEAR(m.angle_error(terms(static_cast<std::int64_t>(p), 1.0, 0)), p * 0x1p-24, p * 0x1p-40);
  spec.scheme = ROPECHECK_SCHEME_LINEAR;  // w_0 = 1 / s: two roundings
  spec.factor = 3;
  const ErrorModel lin(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  EXPECT_GT(lin.angle_error(terms(1 << 20, 1.0 / 3, 0)), 0.0);
}

TEST(ErrorModel, Bf16AngleErrorExceedsTheFp32Budget) {
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  // bf16 keeps 8 bits: at |a| ~ 1000 the rounding error reaches 2 rad.
  const double w1 = std::pow(10000.0, -2.0 / 128);
  EXPECT_LT(m.angle_error(terms(1000, w1, 1)), 1000.0 * 0x1p-9 / 100);
}

TEST(ErrorModel, BudgetAtPositionZeroIsAFewUlps) {
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  const ElementTerms t = terms(0, 1.0, 0);
  // cos 1 ulp, sin at 0 nearly nothing, two product roundings and the sum's
  // (half ulps): about 2 ulps of fp32 at 1 for x = 1, y = 0.5.
  EXPECT_LT(m.budget(t), 2.5 * 0x1p-23);
  const ErrorModel mb(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_BF16, 1.0);
  EXPECT_LT(mb.budget(t), 0.6 * 0x1p-7);  // dominated by half a bf16 ulp at 1
}

TEST(ErrorModel, ArithmeticInTheStorageDtypeIsBudgetedInIt) {
  // HF eager in bf16: three bf16 roundings and cos/sin cast to bf16, where
  // an fp32-math policy allows about one bf16 half ulp (the store).
  ref::FreqSpec spec;
  const ElementTerms t = terms(3, std::pow(10000.0, -2.0 / 128), 1, 1.5, 0.75);
  const ErrorModel eager(hf_eager(), spec, {128, 128}, ROPECHECK_DTYPE_BF16, 1.0);
  const ErrorModel f32(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_BF16, 1.0);
  const BudgetTerms be = eager.terms(t), bf = f32.terms(t);
  EXPECT_EQ(be.store, 0.0);                  // the sum's rounding is the store
  EXPECT_GT(be.prods, 0x1p-9);               // two bf16 half ulps at ~1
  EXPECT_GT(be.total(), 2.5 * bf.total());   // products, sum and the cos/sin cast
  // The FMA form rounds one product fewer.
  const ErrorModel fma(with_rotation(hf_eager(), ROPECHECK_ROTATION_FMA), spec, {128, 128}, ROPECHECK_DTYPE_BF16,
                       1.0);
  EXPECT_LT(fma.terms(t).prods, be.prods);
}

TEST(ErrorModel, RunningProductAnglesGrowWithThePairIndex) {
  // ggml's theta *= theta_scale: pair i carries i roundings and i times the
  // error of theta_scale, far more than one per-pair product at i = 63.
  ref::FreqSpec spec;
  spec.base = 1e6;
  ropecheck_policy_t p = f32_policy();
  p.angle_mode = ROPECHECK_ANGLE_F32_RUNNING_PRODUCT;
  const ErrorModel running(p, spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  const ErrorModel product(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  const double w63 = std::pow(1e6, -126.0 / 128);
  const ElementTerms t = terms(1 << 20, w63, 63);
  EXPECT_GT(running.angle_error(t), 5 * product.angle_error(t));
  EXPECT_EQ(running.angle_error(terms(12345, 1.0, 0)), 0.0);  // theta_0 = fl32(p)
}

TEST(ErrorModel, FastSinCosBeyondItsRangeAddsAPhaseError) {
  ref::FreqSpec spec;
  const Policy fast = with_fast_range(
      fast_sincos_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, 0x1p-21, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32),
      3.14159274, 1.5955e-7);
  const ErrorModel m(fast, spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  EXPECT_LT(m.angle_error(terms(3, 1.0, 0)), 1e-12);          // inside the range: c0 only
  EXPECT_NEAR(m.angle_error(terms(1000, 1.0, 0)), 1.5955e-4, 1e-9);  // slope * |x|
}

TEST(ErrorModel, RefusesPoliciesOutsideTheModel) {
  ropecheck_policy_t p = f32_policy();
  EXPECT_TRUE(ErrorModel::check_policy(p).empty());
  p.freq_dtype = ROPECHECK_DTYPE_BF16;
  EXPECT_NE(ErrorModel::check_policy(p).find("policy.freq_dtype"), std::string::npos);
  p = f32_policy();
  p.sincos = ROPECHECK_SINCOS_FAST;
  p.sincos_max_abs_error = 0.5;
  EXPECT_NE(ErrorModel::check_policy(p).find("policy.sincos_max_abs_error"), std::string::npos);
  p.sincos_max_abs_error = 0;  // a fast sin/cos without its bound
  EXPECT_NE(ErrorModel::check_policy(p).find("policy.sincos_max_abs_error"), std::string::npos);
  p = f32_policy();
  p.math_dtype = 7;  // unknown dtype
  EXPECT_NE(ErrorModel::check_policy(p).find("policy.math_dtype"), std::string::npos);
  Policy range_without_slope(fast_sincos_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, 1e-6,
                                                ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32));
  range_without_slope.ext.sincos_abs_error_range = 3.2;
  EXPECT_NE(ErrorModel::check_policy(range_without_slope).find("policy_ext.sincos_phase_error_slope"),
            std::string::npos);
  Policy ulps = f32_policy();
  ulps.ext.sincos_max_ulp = 0.25;
  EXPECT_NE(ErrorModel::check_policy(ulps).find("policy_ext.sincos_max_ulp"), std::string::npos);
  // bf16 arithmetic cannot take fp32 inputs without rounding them first.
  ropecheck_caps_t caps{sizeof(ropecheck_caps_t), 3, 1u << ROPECHECK_DTYPE_F32, 1, 128, 3};
  p = f32_policy();
  p.math_dtype = ROPECHECK_DTYPE_BF16;
  EXPECT_NE(ErrorModel::check_policy(p, &caps).find("policy.math_dtype: bf16 cannot hold every f32"),
            std::string::npos);
  caps.dtypes = 1u << ROPECHECK_DTYPE_BF16;
  EXPECT_TRUE(ErrorModel::check_policy(p, &caps).empty());
  // A running product has no form for YaRN.
  p = f32_policy();
  p.angle_mode = ROPECHECK_ANGLE_F32_RUNNING_PRODUCT;
  caps.schemes = 1u << ROPECHECK_SCHEME_YARN;
  EXPECT_NE(ErrorModel::check_policy(p, &caps).find("caps.schemes"), std::string::npos);
}

TEST(ErrorModel, YarnCliffDetector) {
  ref::FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.factor = 10;
  f.original_max_position = 2048;
  EXPECT_FALSE(yarn_near_cliff(f, 128));  // low 16.1, high 40.6
  // Choose L so that corr(beta_fast) is exactly 16: L = 2 pi 32 b^(32/128).
  f.original_max_position = static_cast<std::int64_t>(std::llround(kTwoPi * 32 * 10.0));
  f.base = std::pow(f.original_max_position / (kTwoPi * 32), 4.0);
  EXPECT_TRUE(yarn_near_cliff(f, 128));
  f.truncate = false;
  EXPECT_FALSE(yarn_near_cliff(f, 128));
}

}  // namespace
}  // namespace ropecheck
