// SPDX-License-Identifier: MIT
// What ggml_rope_multi's GGML_ROPE_TYPE_VISION (Qwen2-VL's vision encoder in
// llama.cpp's mtmd) takes of a ropecheck call: which calls its pairing says
// in ropecheck's terms, its 4 sections and its 4 position rows.
#ifndef ROPECHECK_FRAMEWORKS_LLAMA_CPP_VISION_ROPE_H_
#define ROPECHECK_FRAMEWORKS_LLAMA_CPP_VISION_ROPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"

namespace ggml_adapter {

// Why VISION cannot compute the call `p` (empty when it can): see
// vision_rope.cc for the one form both sides share.
std::string vision_outside(const ropecheck_apply_params_t& p);

// The sections and the n_dims llama.cpp passes for a call VISION can compute.
void vision_sections(const ropecheck_apply_params_t& p, int out[4]);
inline int vision_n_dims(const ropecheck_apply_params_t& p) { return p.head_dim / 2; }

// The 4 position rows [4 * tokens]: y, x, y, x as mtmd fills them.
std::vector<int32_t> vision_rows(const ropecheck_apply_params_t& p);

}  // namespace ggml_adapter

#endif  // ROPECHECK_FRAMEWORKS_LLAMA_CPP_VISION_ROPE_H_
