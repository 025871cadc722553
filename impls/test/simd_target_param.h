// SPDX-License-Identifier: MIT
// The Highway targets the SIMD kernel tests run on, one gtest parameter each,
// printed by name (SimdTargetsGroup/SimdTargets.X/SSE4): every target the
// kernels' translation unit (impls/simd/rope_simd.cc) was compiled for that
// this CPU supports, its static baseline target among them (SCALAR under
// GCC 12.2, EMU128 under clang: docs/SIMD.md). Highway's own
// HWY_TARGET_INSTANTIATE_TEST_SUITE_P lists the targets of the *test's*
// translation unit, which need not be the kernels' (other flags, another
// compiler setting): a target compiled into the kernels but not the test
// would go untested without a word.
#ifndef ROPECHECK_IMPLS_TEST_SIMD_TARGET_PARAM_H_
#define ROPECHECK_IMPLS_TEST_SIMD_TARGET_PARAM_H_

#include <hwy/targets.h>
#include <hwy/tests/hwy_gtest.h>

#include <cstdint>
#include <vector>

#include "impls/simd/simd_impls.h"

namespace ropecheck {

// SetUp pins the dispatcher to the parameter (SetSupportedTargetsForTest),
// TearDown releases it.
class SimdTargetTest : public hwy::TestWithParamTarget {};

}  // namespace ropecheck

#define ROPECHECK_SIMD_TARGETS_INSTANTIATE(suite)                                                          \
  INSTANTIATE_TEST_SUITE_P(suite##Group, suite, testing::ValuesIn(::ropecheck::impl::simd_runnable_targets()), \
                           ::hwy::TestParamTargetName)

#endif  // ROPECHECK_IMPLS_TEST_SIMD_TARGET_PARAM_H_
