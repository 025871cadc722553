// SPDX-License-Identifier: MIT
// Frequency specs that several golden suites name (smoke's rows, the fused
// suite's KV writes): one definition each.
#ifndef ROPECHECK_GOLDEN_SUITES_NAMED_SPECS_H_
#define ROPECHECK_GOLDEN_SUITES_NAMED_SPECS_H_

#include "reference/freq_spec.h"

namespace ropecheck::golden {

// YaRN as gpt-oss configures it (base 150000, factor 32, L 4096), with
// fractional correction bounds (truncate off).
ref::FreqSpec gpt_oss_yarn();
// YaRN with its attention factor from mscale 1 / mscale_all_dim 0.707
// (DeepSeek's form; base 10000, factor 40, L 4096).
ref::FreqSpec mscale_yarn();
// Llama 3.1's bands (base 500000, factor 8) with pair 5 of d = 16 on the
// high-frequency band edge.
ref::FreqSpec llama31_band_edge();

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_SUITES_NAMED_SPECS_H_
