// SPDX-License-Identifier: MIT
// The multi-axis golden cases (ABI 1.3, issue #20): the published
// configurations of each multi-axis RoPE form in use, named by model,
//   qwen2-vl/mrope/...              M-RoPE in consecutive sections (t, h, w)
//   qwen3-vl/mrope-interleaved/...  M-RoPE with the axes interleaved
//   vit-2d/axial/...                axial 2D RoPE of a vision encoder
//   flux/axes-3d/...                3-axis RoPE of an image diffusion transformer
// each with the positions its model feeds it (text tokens and an image
// grid). Where every value comes from: axis_suites.cc.
#ifndef ROPECHECK_GOLDEN_SUITES_AXIS_SUITES_H_
#define ROPECHECK_GOLDEN_SUITES_AXIS_SUITES_H_

#include "golden/suites/suite_builder.h"

namespace ropecheck::golden {

// kSmoke: one case per model (f32, bf16 or f16), one head each, small
// grids, so the committed smoke vectors stay small. kStandard: every model
// in f32 and bf16, more heads, larger grids and a token deep into a long
// context.
enum class AxisCaseSize { kSmoke, kStandard };
void add_multi_axis_cases(SuiteBuilder& b, AxisCaseSize size);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_SUITES_AXIS_SUITES_H_
