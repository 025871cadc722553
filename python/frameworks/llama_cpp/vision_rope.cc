// SPDX-License-Identifier: MIT
// GGML_ROPE_TYPE_VISION in ropecheck's multi-axis terms (ABI 1.3). Line
// numbers are those of llama-cpp-python 0.3.36's vendor/llama.cpp.
//
// llama.cpp's Qwen2-VL vision encoder (tools/mtmd/models/qwen2vl.cpp:46,
// 130-135) calls ggml_rope_multi(x, positions, NULL, n_dims = d_head/2,
// sections {d_head/4 x 4}, VISION, ..., freq_base 10000, freq_scale 1,
// ext_factor 0), positions y, x, y, x per patch (tools/mtmd/clip.cpp:
// 4833-4859). The CPU kernel (ggml/src/ggml-cpu/ops.cpp):
//  - 6385-6388 asserts n_dims == ne0/2 and no offset: the whole head turns;
//  - 6443-6445 rotate_pairs(ne0, n_dims, ...): pair i is channels
//    (i, i + d_head/2), i < d_head/2: ropecheck's half split over head_dim;
//  - 6220-6290 ggml_mrope_cache_init with indep_sects: pair i of sector
//    i % (sum of sections) < sections[0] turns with row 0 (y) at
//    theta_t = p * theta_scale^i, the next sections[1] with row 1 (x) at
//    p * theta_scale^(i - sections[0]): each axis restarts its frequencies;
//    theta_scale = powf(freq_base, -2/n_dims) (ops.cpp:6372).
// So the j-th pair of an axis turns at freq_base^(-2j / (d_head/2)).
// ropecheck's per-axis frequencies (ROPECHECK_AXIS_FREQ_PER_AXIS) give the
// j-th pair of an axis of n pairs w_j over a rotary dim of 2n,
// freq_base^(-2j / 2n): the same exactly when each of the two axes holds
// d_head/4 pairs, which is what llama.cpp passes. Every other call (a 1D
// call, one axis or three, unequal halves, shared frequencies) is a
// different formula from either side's and is refused, never bent to fit.
#include "python/frameworks/llama_cpp/vision_rope.h"

namespace ggml_adapter {

std::string vision_outside(const ropecheck_apply_params_t& p) {
  if (p.rotary_dim != p.head_dim) return "partial rotary (VISION turns the whole head, ops.cpp:6385-6388)";
  if (p.head_dim % 4) return "head_dim not a multiple of 4 (VISION's two axes take head_dim/4 pairs each)";
  if (p.num_axes != 2) return "a call without 2 axes (VISION turns a patch's y and x)";
  if (p.axis_assignment != ROPECHECK_AXES_SECTIONS || p.axis_frequencies != ROPECHECK_AXIS_FREQ_PER_AXIS)
    return "not sections with per-axis frequencies (VISION restarts each axis's frequencies)";
  if (p.axis_sections[0] != p.head_dim / 4 || p.axis_sections[1] != p.head_dim / 4)
    return "unequal axis sections (VISION's frequencies are over head_dim/2 for each axis: per-axis only for "
           "two equal halves)";
  return "";
}

void vision_sections(const ropecheck_apply_params_t& p, int out[4]) {
  for (int i = 0; i < 4; ++i) out[i] = p.head_dim / 4;
}

std::vector<int32_t> vision_rows(const ropecheck_apply_params_t& p) {
  const int64_t t = p.num_tokens;
  std::vector<int32_t> rows(static_cast<std::size_t>(4 * t));
  const auto* pos = static_cast<const int32_t*>(p.positions);
  for (int r = 0; r < 4; ++r)
    for (int64_t i = 0; i < t; ++i) rows[static_cast<std::size_t>(r * t + i)] = pos[(r % 2) * p.position_axis_stride + i];
  return rows;
}

}  // namespace ggml_adapter
