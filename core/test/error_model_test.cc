// Properties of the error model itself: the budget of a correct fp32-product
// kernel grows with |p w| as derived, a bf16 angle would exceed it, the
// budget near position 0 is a few ulps, and bad policies are refused.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error_model.h"
#include "ropecheck/numbers.h"

namespace ropecheck {
namespace {

ropecheck_policy_t f32_policy() {
  return {sizeof(ropecheck_policy_t), ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT,
          ROPECHECK_SINCOS_LIBM, 0.0, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32};
}

ElementTerms terms(std::int64_t p, double w, int pair) {
  const double x = 1.0, y = 0.5, a = static_cast<double>(p) * w;
  const double c = std::cos(a), s = std::sin(a);
  return pair_terms(x, y, x * c - y * s, x * s + y * c, c, s, std::fabs(a), p, pair)[0];
}

TEST(ErrorModel, AngleBudgetGrowsWithPositionForAnFp32Product) {
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  const double e10 = m.angle_error(terms(1 << 10, 1.0, 0));
  const double e20 = m.angle_error(terms(1 << 20, 1.0, 0));
  EXPECT_NEAR(e20 / e10, 1024.0, 1.0);
  // At p near 2^20 with w near 1 an fp32 product alone rounds by up to half
  // an fp32 ulp of 2^20, 2^-4 = 0.0625 rad: the bound must cover that, and
  // not by orders of magnitude.
  EXPECT_GT(e20, 6.0e-2);
  EXPECT_LT(e20, 0.5);
}

TEST(ErrorModel, Bf16AngleErrorExceedsTheFp32Budget) {
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  // bf16 keeps 8 bits: at |a| ~ 1000 the rounding error reaches 2 rad.
  const ElementTerms t = terms(1000, 1.0, 0);
  EXPECT_LT(m.angle_error(t), 1000.0 * 0x1p-9 / 100);
}

TEST(ErrorModel, BudgetAtPositionZeroIsAFewUlps) {
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_F32, 1.0);
  const ElementTerms t = terms(0, 1.0, 0);
  // sincos (1 ulp per factor), arithmetic (gamma_4) and storage (half ulp):
  // about 4 ulps of fp32 at 1 for |x| + |y| = 1.5.
  EXPECT_LT(m.budget(t), 5 * 0x1p-23);
  const ErrorModel mb(f32_policy(), spec, {128, 128}, ROPECHECK_DTYPE_BF16, 1.0);
  EXPECT_LT(mb.budget(t), 0.6 * 0x1p-7);  // dominated by half a bf16 ulp at 1
}

TEST(ErrorModel, RefusesPoliciesOutsideTheModel) {
  ropecheck_policy_t p = f32_policy();
  EXPECT_TRUE(ErrorModel::check_policy(p).empty());
  p.freq_dtype = ROPECHECK_DTYPE_BF16;
  EXPECT_NE(ErrorModel::check_policy(p).find("freq_dtype"), std::string::npos);
  p = f32_policy();
  p.sincos = ROPECHECK_SINCOS_FAST;
  p.sincos_max_abs_error = 0.5;
  EXPECT_NE(ErrorModel::check_policy(p).find("sincos_max_abs_error"), std::string::npos);
}

TEST(ErrorModel, YarnCliffDetector) {
  ref::FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.factor = 10;
  f.original_max_position = 2048;
  EXPECT_FALSE(ErrorModel::yarn_near_cliff(f, 128));  // low 16.1, high 40.6
  // Choose L so that corr(beta_fast) is exactly 16: L = 2 pi 32 b^(32/128).
  f.original_max_position = static_cast<std::int64_t>(std::llround(kTwoPi * 32 * 10.0));
  f.base = std::pow(f.original_max_position / (kTwoPi * 32), 4.0);
  EXPECT_TRUE(ErrorModel::yarn_near_cliff(f, 128));
  f.truncate = false;
  EXPECT_FALSE(ErrorModel::yarn_near_cliff(f, 128));
}

}  // namespace
}  // namespace ropecheck
