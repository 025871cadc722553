// SPDX-License-Identifier: MIT
// The bounds of reference/freq_spec.h are enough: a config with every
// number at a bound still gives a finite exact result and a finite,
// positive budget for every element, for every precision policy, up to the
// longest position a config may name (2^40). Before the bounds, a correct
// kernel met "budget -nan" on such configs.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/error_model/error_model.h"
#include "core/judge/reference_result.h"
#include "ropecheck/policy.h"

namespace ropecheck {
namespace {

using ref::FreqSpec;

// Each scheme with its numbers pushed to one bound or the other.
std::vector<FreqSpec> extreme_specs(int pairs) {
  std::vector<FreqSpec> out;
  for (double base : {1.0 + 0x1p-40, ref::kMaxBase}) {
    FreqSpec f;
    f.base = base;
    out.push_back(f);
    for (double s : {ref::kMinFactor, ref::kMaxFactor}) {
      for (ropecheck_scheme_t sc : {ROPECHECK_SCHEME_LINEAR, ROPECHECK_SCHEME_NTK_AWARE}) {
        f.scheme = sc;
        f.factor = s;
        out.push_back(f);
      }
    }
    for (double s : {1.0, ref::kMaxFactor}) {
      FreqSpec d = f;
      d.scheme = ROPECHECK_SCHEME_DYNAMIC_NTK;
      d.factor = s;
      d.original_max_position = 1;
      d.seq_len = ref::kMaxConfigPosition;
      out.push_back(d);
      for (double beta : {0x1p-20, ref::kMaxBeta / 2}) {
        FreqSpec y = f;
        y.scheme = ROPECHECK_SCHEME_YARN;
        y.factor = s;
        y.original_max_position = beta < 1 ? 1 : ref::kMaxConfigPosition;
        y.beta_slow = beta;
        y.beta_fast = beta < 1 ? ref::kMaxBeta : 2 * beta;
        y.truncate = false;
        y.mscale = ref::kMaxMscale;
        y.mscale_all_dim = beta < 1 ? 0 : ref::kMaxMscale / 7;
        out.push_back(y);
        y.attention_factor = beta < 1 ? ref::kMinAttentionFactor : ref::kMaxAttentionFactor;
        out.push_back(y);
      }
      FreqSpec l = f;
      l.scheme = ROPECHECK_SCHEME_LLAMA3;
      l.factor = s;
      l.original_max_position = s > 1 ? 1 : ref::kMaxConfigPosition;
      l.low_freq_factor = ref::kMinFactor;
      l.high_freq_factor = ref::kMaxFactor;
      out.push_back(l);
      for (double e : {ref::kMinFactor, ref::kMaxFactor}) {
        FreqSpec r = f;
        r.scheme = ROPECHECK_SCHEME_LONGROPE;
        r.factor = s;
        r.original_max_position = 2;
        r.seq_len = e > 1 ? ref::kMaxConfigPosition : 0;
        r.short_factor.assign(pairs, e);
        r.long_factor.assign(pairs, ref::kMinFactor * ref::kMaxFactor / e);
        out.push_back(r);
      }
    }
  }
  FreqSpec x;
  x.scheme = ROPECHECK_SCHEME_EXPLICIT;
  x.inv_freq.assign(pairs, ref::kMaxInvFreq);
  x.inv_freq[0] = 0;
  out.push_back(x);
  return out;
}

TEST(ConfigBounds, EveryNumberAtItsBoundKeepsReferenceAndBudgetFinite) {
  const ropecheck_policy_t policies[] = {
      libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32),
      libm_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_BF16),
      fast_sincos_policy(ROPECHECK_DTYPE_F64, ROPECHECK_ANGLE_F64, 4e-7, ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_F32)};
  int checked = 0;
  for (int d : {4, 64}) {
    for (const FreqSpec& f : extreme_specs(d / 2)) {
      Case c;
      c.freq = f;
      c.shape = {d, d};
      ASSERT_NO_THROW(ref::validate(c.freq, c.shape)) << f.describe();
      c.dtype = d == 4 ? ROPECHECK_DTYPE_BF16 : ROPECHECK_DTYPE_F32;
      c.positions = {0, 1, 2147483647, ref::kMaxConfigPosition};
      c.tokens = static_cast<std::int64_t>(c.positions.size());
      c.data_seed = 7;
      const QkBuffers in = make_inputs(c);
      const ReferenceResult r = compute_reference(c, in);
      ASSERT_TRUE(std::isfinite(r.attention_factor) && r.attention_factor > 0) << f.describe();
      for (const ropecheck_policy_t& p : policies) {
        const ErrorModel model = case_error_model(p, c, r.attention_factor);
        for (int w = 0; w < 2; ++w)
          for (const ReferenceElement& e : r.elements(w)) {
            const double b = model.budget(e.terms);
            ASSERT_TRUE(std::isfinite(e.terms.value)) << f.describe() << " position " << e.terms.position;
            ASSERT_TRUE(std::isfinite(b) && b > 0) << f.describe() << " position " << e.terms.position << " budget " << b;
            ++checked;
          }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace ropecheck
