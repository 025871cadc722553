// SPDX-License-Identifier: MIT
// The fused parts one golden case may carry, as the code that derives,
// runs or checks its tensors takes them: its KV-cache write and its
// qk-norm (a case reading the caller's cos/sin cache says so in its Case,
// c.caller_cache_dtype). Absent parts are null.
#ifndef ROPECHECK_GOLDEN_FUSED_FUSED_PARTS_H_
#define ROPECHECK_GOLDEN_FUSED_FUSED_PARTS_H_

#include "golden/fused/kv_golden.h"
#include "golden/fused/qk_norm_golden.h"

namespace ropecheck::golden {

struct FusedParts {
  const GoldenKv* kv = nullptr;
  const GoldenNorm* norm = nullptr;
};

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_FUSED_FUSED_PARTS_H_
