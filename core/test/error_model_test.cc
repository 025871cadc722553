// SPDX-License-Identifier: MIT
// Properties of the error model itself: the budget of a correct fp32-product
// kernel grows with |p w| as derived, a bf16 angle would exceed it, pair 0's
// frequency is exact, the budget near position 0 is a few ulps, the new
// policies budget what they declare, and bad policies are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <utility>

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
  return pair_terms({.x = x,
                     .y = y,
                     .value = {x * c - y * s, x * s + y * c},
                     .cos_a = c,
                     .sin_a = s,
                     .abs_angle = std::fabs(a),
                     .position = p,
                     .pair = pair})[0];
}

TEST(ErrorModel, AngleBudgetGrowsWithPositionForAnFp32Product) {
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(),
                     {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
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
  const ErrorModel m(f32_policy(),
                     {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  EXPECT_EQ(m.angle_error(terms(1 << 20, 1.0, 0)), 0.0);
  const double p = 0x1p24 + 1;
  EXPECT_NEAR(m.angle_error(terms(static_cast<std::int64_t>(p), 1.0, 0)), p * 0x1p-24, p * 0x1p-40);
  spec.scheme = ROPECHECK_SCHEME_LINEAR;  // w_0 = 1 / s: two roundings
  spec.factor = 3;
  const ErrorModel lin(f32_policy(),
                       {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  EXPECT_GT(lin.angle_error(terms(1 << 20, 1.0 / 3, 0)), 0.0);
}

TEST(ErrorModel, TheFrequencysFormSetsE1) {
  // 1.7: exp(-i fl(ln b / (d/2))) carries the argument's three roundings,
  // each relative to i ln(b) / (d/2), where the power form carries one: at
  // the last pair of b = 1e4 its E1 is (2k + 2) ln b + 1 + 2k + 1 = 40 units
  // against ln b + 1 + 4 = 14.2; the exp's declared growth adds slope ln b.
  // A table holds the exact values: 3 units for any pair and scheme.
  ref::FreqSpec spec;
  const int last = 63;
  const double e = 2.0 * last / 128, lnb = std::log(1e4), u = 0x1p-24;
  const ErrorModel power(f32_policy(),
                         {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  EXPECT_NEAR(power.freq_rel_error(last) / u, e * (lnb + 1) + 4, 1e-9);
  const ErrorModel exp_log(
      with_freq_form(f32_policy(), ROPECHECK_FREQ_EXP_LOG),
      {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  EXPECT_NEAR(exp_log.freq_rel_error(last) / u, e * (4 * lnb + 1) + 3, 1e-9);
  const ErrorModel sloped(with_freq_form(f32_policy(), ROPECHECK_FREQ_EXP_LOG, 2 * u),
                          {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  EXPECT_NEAR((sloped.freq_rel_error(last) - exp_log.freq_rel_error(last)) / u, 2 * e * lnb, 1e-9);
  const ErrorModel table(with_freq_form(f32_policy(), ROPECHECK_FREQ_TABLE),
                         {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  EXPECT_NEAR(table.freq_rel_error(last) / u, 3, 1e-12);
  // Pair 0 stays exact in every form: exp(0) = 1, and a table holds 1.
  for (const ErrorModel* m : {&exp_log, &table}) EXPECT_EQ(m->angle_error(terms(1 << 20, 1.0, 0)), 0.0);
  // YaRN through a table: no ramp amplification, the values are given.
  spec.scheme = ROPECHECK_SCHEME_YARN;
  spec.factor = 40;
  spec.original_max_position = 4096;
  const ErrorModel yarn_table(
      with_freq_form(f32_policy(), ROPECHECK_FREQ_TABLE),
      {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  const ErrorModel yarn_power(
      f32_policy(), {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  EXPECT_NEAR(yarn_table.freq_rel_error(20) / u, 3, 1e-12);
  EXPECT_GT(yarn_power.freq_rel_error(20), 20 * yarn_table.freq_rel_error(20));
}

TEST(ErrorModel, FlushedSubnormalsChargeTheFlushWhereAValueCanFallBelowTheSmallestNormal) {
  // 1.7: an input below 2^-126 read as zero (DAZ) is an input error of its
  // own size; a result below it written as zero (FTZ) is off by at most its
  // size; normal values budget as before.
  ref::FreqSpec spec;
  const ErrorModel kept(f32_policy(),
                        {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  const ErrorModel flushed(
      with_subnormals_flushed(f32_policy()),
      {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  const double w1 = std::pow(10000.0, -2.0 / 128);
  const ElementTerms normal = terms(100, w1, 1);
  EXPECT_EQ(kept.budget(normal), flushed.budget(normal));
  const double tiny = 0x1p-140;  // an fp32 subnormal
  const ElementTerms sub = terms(100, w1, 1, tiny, tiny / 2);
  EXPECT_LT(kept.budget(sub), 0x1p-145);         // gradual underflow: half a subnormal ulp per rounding
  EXPECT_GE(flushed.budget(sub), std::fabs(sub.value));  // a flushed output of 0 is within it
  // The pair budgets of the budget tables agree with the element budgets.
  const std::array<ElementTerms, 2> pair = pair_terms({.x = tiny,
                                                       .y = tiny / 2,
                                                       .value = {sub.value, sub.partner},
                                                       .cos_a = sub.cos_a,
                                                       .sin_a = sub.sin_a,
                                                       .abs_angle = sub.abs_angle,
                                                       .position = 100,
                                                       .pair = 1});
  const ErrorModel::PairBudgets b = flushed.pair_budgets(pair);
  EXPECT_EQ(b.terms[0].total(), flushed.budget(pair[0]));
  EXPECT_GE(b.pair_no_angle, std::hypot(tiny, tiny / 2));
}

TEST(ErrorModel, Bf16AngleErrorExceedsTheFp32Budget) {
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(),
                     {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  // bf16 keeps 8 bits: at |a| ~ 1000 the rounding error reaches 2 rad.
  const double w1 = std::pow(10000.0, -2.0 / 128);
  EXPECT_LT(m.angle_error(terms(1000, w1, 1)), 1000.0 * 0x1p-9 / 100);
}

TEST(ErrorModel, BudgetAtPositionZeroIsAFewUlps) {
  ref::FreqSpec spec;
  const ErrorModel m(f32_policy(),
                     {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  const ElementTerms t = terms(0, 1.0, 0);
  // cos 1 ulp, sin at 0 nearly nothing, two product roundings and the sum's
  // (half ulps): about 2 ulps of fp32 at 1 for x = 1, y = 0.5.
  EXPECT_LT(m.budget(t), 2.5 * 0x1p-23);
  const ErrorModel mb(f32_policy(),
                      {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_BF16, .attention_factor = 1.0});
  EXPECT_LT(mb.budget(t), 0.6 * 0x1p-7);  // dominated by half a bf16 ulp at 1
}

TEST(ErrorModel, ArithmeticInTheStorageDtypeIsBudgetedInIt) {
  // HF eager in bf16: three bf16 roundings and cos/sin cast to bf16, where
  // an fp32-math policy allows about one bf16 half ulp (the store).
  ref::FreqSpec spec;
  const ElementTerms t = terms(3, std::pow(10000.0, -2.0 / 128), 1, 1.5, 0.75);
  const ErrorModel eager(hf_eager(),
                         {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_BF16, .attention_factor = 1.0});
  const ErrorModel f32(f32_policy(),
                       {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_BF16, .attention_factor = 1.0});
  const BudgetTerms be = eager.terms(t), bf = f32.terms(t);
  EXPECT_EQ(be.store, 0.0);                  // the sum's rounding is the store
  EXPECT_GT(be.prods, 0x1p-9);               // two bf16 half ulps at ~1
  EXPECT_GT(be.total(), 2.5 * bf.total());   // products, sum and the cos/sin cast
  // The FMA form rounds one product fewer.
  const ErrorModel fma(with_rotation(hf_eager(), ROPECHECK_ROTATION_FMA),
                       {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_BF16, .attention_factor = 1.0});
  EXPECT_LT(fma.terms(t).prods, be.prods);
}

TEST(ErrorModel, RunningProductAnglesGrowWithThePairIndex) {
  // ggml's theta *= theta_scale: pair i carries i roundings and i times the
  // error of theta_scale, far more than one per-pair product at i = 63.
  ref::FreqSpec spec;
  spec.base = 1e6;
  ropecheck_policy_t p = f32_policy();
  p.angle_mode = ROPECHECK_ANGLE_F32_RUNNING_PRODUCT;
  const ErrorModel running(
      p, {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  const ErrorModel product(
      f32_policy(), {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
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
  const ErrorModel m(fast,
                     {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  EXPECT_LT(m.angle_error(terms(3, 1.0, 0)), 1e-12);          // inside the range: c0 only
  EXPECT_NEAR(m.angle_error(terms(1000, 1.0, 0)), 1.5955e-4, 1e-9);  // slope * |x|
}

TEST(ErrorModel, AFastSinCosFinerThanFp32CanHoldIsEvaluatedInDouble) {
  // A declared error below half an fp32 ulp in [0.5, 1) (2^-25) is one no
  // fp32 evaluation keeps: sin/cos are doubles, rounded once to the fp32
  // table (the cache kernels' builder, impls/kernel_support/cache_builder.cc).
  // Its trig term is then libm's plus the declared error, not an fp32
  // evaluation's extra rounding of m cos (YaRN's attention factor).
  ref::FreqSpec spec;
  spec.scheme = ROPECHECK_SCHEME_YARN;
  spec.factor = 4;
  spec.original_max_position = 4096;
  const ElementTerms t = terms(12345, std::pow(10000.0, -2.0 / 128), 1, 1.5, 0.75);
  auto trig = [&](const Policy& p) {
    return ErrorModel(p, {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.1})
        .terms(t)
        .trig;
  };
  const double libm = trig(libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32));
  const double fine = trig(fast_sincos_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, 0x1p-49, ROPECHECK_DTYPE_F32,
                                              ROPECHECK_DTYPE_F32));
  const double coarse = trig(fast_sincos_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, 0x1p-26,
                                                ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32));
  EXPECT_GE(fine, libm);
  EXPECT_LT(fine, libm * (1 + 1e-6));      // 2^-49 against fp32 roundings
  EXPECT_GT(coarse, 1.5 * libm);           // evaluated in fp32: one more rounding and the error
  // The line itself: 2^-25 is an fp32 evaluation's.
  const double at = trig(fast_sincos_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, 0x1p-25, ROPECHECK_DTYPE_F32,
                                            ROPECHECK_DTYPE_F32));
  EXPECT_GT(at, 1.5 * libm);
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
  Policy slope_without_exp = with_freq_form(f32_policy(), ROPECHECK_FREQ_TABLE);
  slope_without_exp.ext2.freq_exp_slope = 1e-7;
  EXPECT_NE(ErrorModel::check_policy(slope_without_exp).find("policy_ext2.freq_exp_slope"), std::string::npos);
  Policy steep = with_freq_form(f32_policy(), ROPECHECK_FREQ_EXP_LOG, 1e-3);
  EXPECT_NE(ErrorModel::check_policy(steep).find("policy_ext2.freq_exp_slope: must be in [0, 2^-16]"),
            std::string::npos);
  Policy subnormals = f32_policy();
  subnormals.ext2.subnormals = 2;
  EXPECT_NE(ErrorModel::check_policy(subnormals).find("policy_ext2.subnormals"), std::string::npos);
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
  // A running product forms every scheme but an explicit list of frequencies.
  p = f32_policy();
  p.angle_mode = ROPECHECK_ANGLE_F32_RUNNING_PRODUCT;
  caps.dtypes = 1u << ROPECHECK_DTYPE_F32;
  caps.schemes = (1u << ROPECHECK_SCHEME_EXPLICIT) - 1;
  EXPECT_TRUE(ErrorModel::check_policy(p, &caps).empty()) << ErrorModel::check_policy(p, &caps);
  caps.schemes = 1u << ROPECHECK_SCHEME_EXPLICIT;
  EXPECT_NE(ErrorModel::check_policy(p, &caps).find("caps.schemes"), std::string::npos);
}

ErrorModel running_product(const ref::FreqSpec& spec) {
  ropecheck_policy_t p = f32_policy();
  p.angle_mode = ROPECHECK_ANGLE_F32_RUNNING_PRODUCT;
  return ErrorModel(p, {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
}

TEST(ErrorModel, RunningProductOfAScaledBaseCarriesTheBasesError) {
  // NTK-aware: theta_scale = powf(fl32(b'), -2/d), b' = b s^(d/(d-2)) with
  // E1's r_b units before its rounding; pair 0 is still fl32(p), exact.
  ref::FreqSpec plain;
  ref::FreqSpec ntk;
  ntk.scheme = ROPECHECK_SCHEME_NTK_AWARE;
  ntk.factor = 8;
  const ErrorModel a = running_product(plain), b = running_product(ntk);
  EXPECT_EQ(b.angle_error(terms(12345, 1.0, 0)), 0.0);
  const ElementTerms t = terms(1 << 16, 1e-3, 63);
  EXPECT_GT(b.angle_error(t), a.angle_error(t));
  // r_b = ln 8 * 128/126 + 4 units at b' ~ 8.3e4: the log bound per step grows by
  // (2/d) r_b u, about 63 * 0.1 u over 63 steps, far below the steps' own 63 u.
  EXPECT_LT(b.angle_error(t), 1.2 * a.angle_error(t));
}

TEST(ErrorModel, RunningProductYarnChargesTheRampOnlyInsideIt) {
  // d = 128, b = 1e4, s = 10, L = 2048, truncate: low 16, high 41.
  ref::FreqSpec y;
  y.scheme = ROPECHECK_SCHEME_YARN;
  y.factor = 10;
  y.original_max_position = 2048;
  const ErrorModel m = running_product(y);
  const double u = 0x1p-24;
  // The same pair index and |angle| in and out of the ramp: inside, the two
  // weights' 3 u each, amplified by (1 + s) relative to the mixed angle.
  const double a = 1000.0;
  const auto bound = [&](int pair) { return m.angle_error(terms(1 << 12, a / (1 << 12), pair)); };
  const double inside = bound(30) / a, below = bound(16) / a, above = bound(41) / a;
  // A step of the loop adds L1 + lambda, about (2/d)(ln b + 1) u + 3 u.
  const double step = (2.0 / 128 * (std::log(1e4) + 1) + 3.01) * u;
  EXPECT_GT(inside - below, (1 + 10) * 3 * u + 14 * step * 0.99);  // the mix term and 14 more steps
  EXPECT_LT(inside - below, (1 + 10) * 3 * u + 14 * step);
  EXPECT_LT(above - below, 25 * step);  // outside the ramp: only the loop's 25 more steps
}

TEST(ErrorModel, RunningProductLlama3FactorIsBoundedByTheBand) {
  // Llama 3.1 (b 5e5, s 8, lf 1, hf 4, L 8192): the blend band amplifies
  // the factor's error by (s - 1) hf / (hf - lf); outside it, one rounding.
  ref::FreqSpec l;
  l.scheme = ROPECHECK_SCHEME_LLAMA3;
  l.base = 500000;
  l.factor = 8;
  l.original_max_position = 8192;
  const ErrorModel m = running_product(l);
  const double u = 0x1p-24, a = 100.0;
  const auto rel = [&](int pair) { return m.angle_error(terms(1 << 12, a / (1 << 12), pair)) / a; };
  // Pairs 29..34 blend (the published anchor); 28 and 35 are outside.
  EXPECT_GT(rel(30) - rel(28), 7 * 4.0 / 3 * 10 * u);
  EXPECT_LT(rel(36) - rel(35), 4 * u);  // one more step, both factors one rounding
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



// Half an ulp of a binary format with p significand bits at |z| (normal z):
// 2^(floor(log2 |z|) - p).
double half_ulp(double z, int p) { return std::ldexp(1.0, std::ilogb(z) - p); }

TEST(ErrorModel, ACallersCacheChargesItsOneRoundingAndNoAngle) {
  // E4c: a cos/sin cache the caller built from the exact angles and rounded
  // once to its dtype C: no angle error at any position, and m cos a, m sin a
  // each off by half an ulp of C at their magnitude.
  ref::FreqSpec spec;
  const double w1 = std::pow(10000.0, -2.0 / 128);
  const ElementTerms t = terms(std::int64_t{1} << 20, w1, 1, 1.5, 0.75);
  const ErrorModel own(f32_policy(),
                       {.spec = spec, .shape = {128, 128}, .storage = ROPECHECK_DTYPE_F32, .attention_factor = 1.0});
  EXPECT_GT(own.terms(t).angle, 0.0);
  const ErrorModel f32(f32_policy(), {.spec = spec,
                                      .shape = {128, 128},
                                      .storage = ROPECHECK_DTYPE_F32,
                                      .attention_factor = 1.0,
                                      .caller_cache = ROPECHECK_DTYPE_F32});
  const BudgetTerms b = f32.terms(t);
  EXPECT_EQ(f32.angle_error(t), 0.0);
  EXPECT_EQ(b.angle, 0.0);
  const double c = std::fabs(t.cos_a), s = std::fabs(t.sin_a);
  EXPECT_DOUBLE_EQ(b.trig, 1.5 * half_ulp(c, 24) + 0.75 * half_ulp(s, 24));
  // In bf16 (8 bits) the same term is 2^16 times larger.
  const ErrorModel bf16(f32_policy(), {.spec = spec,
                                       .shape = {128, 128},
                                       .storage = ROPECHECK_DTYPE_F32,
                                       .attention_factor = 1.0,
                                       .caller_cache = ROPECHECK_DTYPE_BF16});
  EXPECT_DOUBLE_EQ(bf16.terms(t).trig, 1.5 * half_ulp(c, 8) + 0.75 * half_ulp(s, 8));
  EXPECT_LT(bf16.budget(t), own.budget(t));  // still no angle at 2^20
  // The attention factor is in the cache, folded in before the rounding.
  const ErrorModel scaled(f32_policy(), {.spec = spec,
                                         .shape = {128, 128},
                                         .storage = ROPECHECK_DTYPE_F32,
                                         .attention_factor = 1.25,
                                         .caller_cache = ROPECHECK_DTYPE_F32});
  EXPECT_DOUBLE_EQ(scaled.terms(t).trig, 1.5 * half_ulp(1.25 * c, 24) + 0.75 * half_ulp(1.25 * s, 24));
}

TEST(ErrorModel, ACallersCacheRoundedAgainToTheDeclaredCosSinDtypeAddsThatRounding) {
  // A kernel whose policy multiplies cos/sin in bf16 (HF eager's cast to
  // q.dtype) given an fp32 cache rounds each value a second time; given a
  // bf16 cache, bf16 holds it and nothing is added.
  ref::FreqSpec spec;
  const ElementTerms t = terms(12345, std::pow(10000.0, -2.0 / 128), 1, 1.5, 0.75);
  const ErrorModel f32(f32_policy(), {.spec = spec,
                                      .shape = {128, 128},
                                      .storage = ROPECHECK_DTYPE_BF16,
                                      .attention_factor = 1.0,
                                      .caller_cache = ROPECHECK_DTYPE_F32});
  const ErrorModel eager(hf_eager(), {.spec = spec,
                                      .shape = {128, 128},
                                      .storage = ROPECHECK_DTYPE_BF16,
                                      .attention_factor = 1.0,
                                      .caller_cache = ROPECHECK_DTYPE_F32});
  const double c = std::fabs(t.cos_a), s = std::fabs(t.sin_a);
  const double c1 = c + half_ulp(c, 24), s1 = s + half_ulp(s, 24);
  EXPECT_DOUBLE_EQ(eager.terms(t).trig, 1.5 * (half_ulp(c, 24) + half_ulp(c1, 8)) +
                                            0.75 * (half_ulp(s, 24) + half_ulp(s1, 8)));
  EXPECT_GT(eager.terms(t).trig, 100 * f32.terms(t).trig);
  const ErrorModel held(hf_eager(), {.spec = spec,
                                     .shape = {128, 128},
                                     .storage = ROPECHECK_DTYPE_BF16,
                                     .attention_factor = 1.0,
                                     .caller_cache = ROPECHECK_DTYPE_BF16});
  EXPECT_DOUBLE_EQ(held.terms(t).trig, 1.5 * half_ulp(c, 8) + 0.75 * half_ulp(s, 8));
}

TEST(ErrorModel, PairBudgetsAreTheElementBudgetsOfBothElements) {
  // pair_budgets() is what the judge and the properties read (through
  // core/judge/budget_table.h): bit for bit terms() of each element and
  // pair_budget(), pair_budget_excluding_angle() of the pair, for every
  // policy form, scaled or not, with a fused norm's input errors or not.
  ref::FreqSpec yarn;
  yarn.scheme = ROPECHECK_SCHEME_YARN;
  yarn.factor = 8;
  yarn.original_max_position = 4096;
  const Policy fast = with_fast_range(
      Policy(fast_sincos_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, 1e-6, ROPECHECK_DTYPE_F32,
                                ROPECHECK_DTYPE_F32)),
      3.25, 1.6e-7);
  const Policy policies[] = {f32_policy(), hf_eager(), with_rotation(f32_policy(), ROPECHECK_ROTATION_FMA), fast,
                             libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32,
                                         ROPECHECK_DTYPE_F32)};
  const double w = std::pow(10000.0, -2.0 / 64);
  int compared = 0;
  for (const Policy& p : policies)
    for (const ropecheck_dtype_t storage : {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_BF16, ROPECHECK_DTYPE_F16})
      for (const double m : {1.0, 1.25})
        for (const std::optional<ropecheck_dtype_t> cache : {std::optional<ropecheck_dtype_t>{},
                                                             std::optional<ropecheck_dtype_t>{ROPECHECK_DTYPE_BF16}}) {
          const ErrorModel model(p, {.spec = m > 1 ? yarn : ref::FreqSpec{},
                                     .shape = {64, 64},
                                     .storage = storage,
                                     .attention_factor = m,
                                     .caller_cache = cache});
          for (const std::int64_t pos : {std::int64_t{0}, std::int64_t{7}, std::int64_t{1} << 16, std::int64_t{1} << 24})
            for (const auto& [x, y] : {std::pair{1.0, 0.5}, std::pair{-3e4, 0x1p-20}, std::pair{0.0, -0.0},
                                       std::pair{0x1p-140, 6e4}})
              for (const double err : {0.0, 0x1p-12}) {
                const double a = static_cast<double>(pos) * w;
                const double c = std::cos(a), s = std::sin(a);
                std::array<ElementTerms, 2> t = pair_terms({.x = x,
                                                            .y = y,
                                                            .value = {m * (x * c - y * s), m * (x * s + y * c)},
                                                            .cos_a = c,
                                                            .sin_a = s,
                                                            .abs_angle = std::fabs(a),
                                                            .position = pos,
                                                            .pair = 3});
                for (ElementTerms& e : t) {
                  e.input_error_x = err;
                  e.input_error_y = 2 * err;
                }
                const ErrorModel::PairBudgets b = model.pair_budgets(t);
                for (int side = 0; side < 2; ++side) {
                  const BudgetTerms want = model.terms(t[static_cast<std::size_t>(side)]);
                  const BudgetTerms& got = b.terms[static_cast<std::size_t>(side)];
                  const auto bits = [](const BudgetTerms& b) {
                    return std::array<std::uint64_t, 8>{
                        std::bit_cast<std::uint64_t>(b.angle), std::bit_cast<std::uint64_t>(b.trig),
                        std::bit_cast<std::uint64_t>(b.prods), std::bit_cast<std::uint64_t>(b.fin),
                        std::bit_cast<std::uint64_t>(b.store), std::bit_cast<std::uint64_t>(b.judge),
                        std::bit_cast<std::uint64_t>(b.input), std::uint64_t{b.angle_capped}};
                  };
                  EXPECT_EQ(bits(got), bits(want)) << "side " << side << " position " << pos << " x " << x;
                }
                EXPECT_EQ(b.pair, model.pair_budget(t[0])) << "position " << pos << " x " << x;
                EXPECT_EQ(b.pair_no_angle, model.pair_budget_excluding_angle(t[0]));
                EXPECT_EQ(b.norm, std::hypot(x, y));
                ++compared;
              }
        }
  EXPECT_EQ(compared, 5 * 3 * 2 * 2 * 4 * 4 * 2);
}

}  // namespace
}  // namespace ropecheck
