// SPDX-License-Identifier: MIT
// The multi-axis golden cases (ABI 1.3, issue #20): the definitions of golden/suites/axis_suites.h.
#include "golden/suites/axis_suites.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ropecheck/names.h"

namespace ropecheck::golden {
namespace {

using Rows = std::vector<std::vector<std::int64_t>>;  // [axis][token]

// Where the values come from (files read at these commits):
//   [T2] huggingface/transformers src/transformers/models/qwen2_vl/
//        modeling_qwen2_vl.py @928b5565ecea2852ac5a41701c90589321548522:
//        apply_multimodal_rotary_pos_emb splits cos/sin of cat(freqs, freqs)
//        by mrope_section * 2 and rotates with rotate_half (half_split, the
//        sections consecutive t, h, w); get_rope_index gives text tokens
//        t = h = w = their index and an image's tokens t = its start index,
//        h, w = start + row, column of its merged grid, the text after it
//        starting one past the image's largest id; VisionRotaryEmbedding
//        (head_dim // 2, theta 10000) gives the vision encoder 20 row and 20
//        column frequencies, each set 10000^(-2j/40), applied with
//        rotate_half over head_dim 80 (apply_rotary_pos_emb_vision); the
//        vision tokens are ordered in 2x2 merge blocks (rot_pos_emb).
//   [T2c] the same repository, configuration_qwen2_vl.py
//        @4efabc6e587409f46730c52086689939125f9b48: rope_theta 1000000.0;
//        vision embed_dim 1280, num_heads 16 (head_dim 80).
//   Qwen2-VL-7B's config.json (Qwen/Qwen2-VL-7B-Instruct): hidden_size
//        3584, num_attention_heads 28 (head_dim 128), num_key_value_heads 4,
//        rope_scaling {"type": "mrope", "mrope_section": [16, 24, 24]},
//        rope_theta 1000000.0, max_position_embeddings 32768; M-RoPE: Wang et al. 2024, "Qwen2-VL",
//        arXiv:2409.12191, section 2.1. The hub file itself is not in a
//        repository read here; these are the values copies of it quote.
//   [T3] huggingface/transformers src/transformers/models/qwen3_vl/
//        modeling_qwen3_vl.py @68a7b7e272a36928120316249af3ee3cac595818:
//        mrope_section default [24, 20, 20]; apply_interleaved_mrope puts
//        h on pairs 1, 4, ... below 3 * 20 and w on 2, 5, ... below 3 * 20,
//        t on the rest, then rotate_half (half_split).
//   [T3c] configuration_qwen3_vl.py @e1b551679e267be053b45581cbabd028a14defd2:
//        Qwen3VLTextConfig head_dim 128, rope_theta 5000000.0,
//        max_position_embeddings 128000 (defaults "similar to
//        Qwen3-VL-4B-Instruct").
//   [F]  black-forest-labs/flux src/flux/util.py
//        @728c01823f4697d1a1ea775876ac5c55c3b0962f: FLUX.1 hidden_size 3072,
//        num_heads 24 (head_dim 128), axes_dim [16, 56, 56], theta 10_000;
//        src/flux/modules/layers.py @5ce5ffcf2d2f55259eb46f61a399fa376c8c985c:
//        EmbedND concatenates rope(ids[..., i], axes_dim[i], theta) per axis,
//        each restarting theta^(-2j/axes_dim[i]) (per-axis frequencies), and
//        math.py's apply_rope rotates adjacent channel pairs (interleaved);
//        sampling.py: text ids are all 0, image ids (0, row, column), and
//        prepare_kontext gives the context image ids (1, row, column).

// Text, one image of grid_h x grid_w merged tokens, text; then, when
// far_text > 0, one more text token at that position (a token at the end of
// the model's context, max_position_embeddings - 1: t = h = w). Positions as get_rope_index [T2] forms them.
Rows mrope_positions(int text_before, int grid_h, int grid_w, int text_after, std::int64_t far_text) {
  Rows rows(3);
  auto push = [&](std::int64_t t, std::int64_t h, std::int64_t w) {
    rows[0].push_back(t);
    rows[1].push_back(h);
    rows[2].push_back(w);
  };
  for (int i = 0; i < text_before; ++i) push(i, i, i);
  const std::int64_t start = text_before;
  for (int r = 0; r < grid_h; ++r)
    for (int c = 0; c < grid_w; ++c) push(start, start + r, start + c);
  const std::int64_t next = start + std::max(grid_h, grid_w);
  for (int i = 0; i < text_after; ++i) push(next + i, next + i, next + i);
  if (far_text > 0) push(far_text, far_text, far_text);
  return rows;
}

// Row and column of a grid_h x grid_w patch grid in 2x2 merge-block order,
// as Qwen2-VL's vision encoder lists its tokens (rot_pos_emb [T2]).
Rows vision_grid_positions(int grid_h, int grid_w) {
  Rows rows(2);
  for (int br = 0; br < grid_h; br += 2)
    for (int bc = 0; bc < grid_w; bc += 2)
      for (int r = br; r < br + 2; ++r)
        for (int c = bc; c < bc + 2; ++c) {
          rows[0].push_back(r);
          rows[1].push_back(c);
        }
  return rows;
}

// FLUX's ids [F]: text tokens (0, 0, 0), the generated image's latent
// patches (0, row, column), and the patches of a context image (1, row,
// column); `corner` adds the last patch of a 1024 x 1024 image (64 x 64
// latent patches).
struct FluxIds {
  int text, grid_h, grid_w, context_h, context_w;
  bool corner;
};
Rows flux_positions(const FluxIds& ids) {
  Rows rows(3);
  auto push = [&](std::int64_t a, std::int64_t r, std::int64_t c) {
    rows[0].push_back(a);
    rows[1].push_back(r);
    rows[2].push_back(c);
  };
  for (int i = 0; i < ids.text; ++i) push(0, 0, 0);
  for (int r = 0; r < ids.grid_h; ++r)
    for (int c = 0; c < ids.grid_w; ++c) push(0, r, c);
  if (ids.corner) push(0, 63, 63);
  for (int r = 0; r < ids.context_h; ++r)
    for (int c = 0; c < ids.context_w; ++c) push(1, r, c);
  return rows;
}

ref::AxisSpec sections(std::vector<std::int32_t> s, ropecheck_axis_assignment_t assignment,
                       ropecheck_axis_frequencies_t frequencies) {
  ref::AxisSpec a;
  a.num_axes = static_cast<int>(s.size());
  a.assignment = assignment;
  a.frequencies = frequencies;
  a.sections = std::move(s);
  return a;
}

struct AxisModel {
  const char* name;     // case name prefix
  const char* model;    // the published model
  const char* comment;  // its values, in short (the sources: above)
  double base;
  ref::HeadShape shape;
  ropecheck_layout_t layout;
  ref::AxisSpec axes;
  Rows smoke_positions, standard_positions;
  ropecheck_dtype_t smoke_dtype;
  int standard_q_heads, standard_kv_heads;  // the model's grouping, scaled down
};

std::vector<AxisModel> axis_models() {
  return {
      {"qwen2-vl/mrope", "Qwen2-VL-7B",
       "Qwen2-VL-7B M-RoPE: head_dim 128, rope_theta 1e6, mrope_section [16, 24, 24] (t, h, w) in consecutive "
       "sections, shared frequencies, rotate_half; text tokens t = h = w around an image grid (t constant)",
       1e6, {128, 128}, ROPECHECK_LAYOUT_HALF_SPLIT,
       sections({16, 24, 24}, ROPECHECK_AXES_SECTIONS, ROPECHECK_AXIS_FREQ_SHARED), mrope_positions(2, 2, 2, 1, 0),
       mrope_positions(3, 3, 4, 2, 32767), ROPECHECK_DTYPE_F32, 7, 1},
      {"qwen3-vl/mrope-interleaved", "Qwen3-VL-4B",
       "Qwen3-VL interleaved M-RoPE: head_dim 128, rope_theta 5e6, mrope_section [24, 20, 20] round robin (h on "
       "pairs 1, 4, .. < 60, w on 2, 5, .. < 60, t on the rest), shared frequencies, rotate_half",
       5e6, {128, 128}, ROPECHECK_LAYOUT_HALF_SPLIT,
       sections({24, 20, 20}, ROPECHECK_AXES_INTERLEAVED, ROPECHECK_AXIS_FREQ_SHARED),
       mrope_positions(2, 2, 2, 1, 0), mrope_positions(3, 3, 4, 2, 127999), ROPECHECK_DTYPE_BF16, 2, 1},
      {"vit-2d/axial", "Qwen2-VL-7B vision encoder",
       "axial 2D RoPE of Qwen2-VL's ViT: embed 1280 / 16 heads = head_dim 80, base 1e4, 20 row then 20 column "
       "pairs, each axis restarting its frequencies (10000^(-2j/40)), rotate_half; patches in 2x2 merge blocks",
       1e4, {80, 80}, ROPECHECK_LAYOUT_HALF_SPLIT,
       sections({20, 20}, ROPECHECK_AXES_SECTIONS, ROPECHECK_AXIS_FREQ_PER_AXIS), vision_grid_positions(2, 4),
       vision_grid_positions(4, 6), ROPECHECK_DTYPE_F16, 2, 2},
      {"flux/axes-3d", "FLUX.1-dev",
       "FLUX.1 EmbedND: head_dim 128, theta 1e4, axes_dim 16/56/56 channels = 8/28/28 pairs, each axis restarting "
       "its frequencies, adjacent channel pairs (complex form); ids (0,0,0) text, (0,r,c) image, (1,r,c) context",
       1e4, {128, 128}, ROPECHECK_LAYOUT_INTERLEAVED,
       sections({8, 28, 28}, ROPECHECK_AXES_SECTIONS, ROPECHECK_AXIS_FREQ_PER_AXIS),
       flux_positions({1, 2, 2, 1, 2, false}), flux_positions({2, 3, 4, 2, 2, true}), ROPECHECK_DTYPE_F32, 2, 2},
  };
}

}  // namespace

void add_multi_axis_cases(SuiteBuilder& b, AxisCaseSize size) {
  const bool smoke = size == AxisCaseSize::kSmoke;
  for (const AxisModel& m : axis_models()) {
    ref::FreqSpec f;
    f.base = m.base;
    std::vector<ropecheck_dtype_t> dtypes{m.smoke_dtype};
    if (!smoke) dtypes = {ROPECHECK_DTYPE_F32, ROPECHECK_DTYPE_BF16};
    for (ropecheck_dtype_t t : dtypes) {
      GoldenCase& g = b.add_axes({.name = std::string(m.name) + "/" + std::string(dtype_name(t)),
                                  .comment = m.comment,
                                  .freq = f,
                                  .shape = m.shape,
                                  .layout = m.layout,
                                  .dtype = t,
                                  .q_heads = smoke ? 1 : m.standard_q_heads,
                                  .kv_heads = smoke ? 1 : m.standard_kv_heads},
                                 m.axes, smoke ? m.smoke_positions : m.standard_positions);
      g.model = m.model;
      g.extra_flags.push_back("RealModelConfig");
    }
  }
}

}  // namespace ropecheck::golden
