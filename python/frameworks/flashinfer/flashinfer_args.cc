// SPDX-License-Identifier: MIT
// See flashinfer_args.h.
#include "python/frameworks/flashinfer/flashinfer_args.h"

#include <algorithm>

namespace flashinfer_adapter {

std::string rope_args(Entry e, const ropecheck_freq_spec_t& f, RopeArgs* out) {
  RopeArgs a;
  a.rope_theta = static_cast<float>(f.base);
  switch (e) {
    case Entry::kPosIds:
      // apply_rope_pos_ids(rope_scale, rope_theta): freq * (1 / rope_scale) is linear
      // interpolation (pos_enc.cuh:716 with smooth_a = smooth_b = 0, 1603-1604)
      if (f.scheme == ROPECHECK_SCHEME_DEFAULT) return (*out = a, "");
      if (f.scheme == ROPECHECK_SCHEME_LINEAR) {
        a.rope_scale = static_cast<float>(f.factor);
        return (*out = a, "");
      }
      return "scheme: apply_rope_pos_ids takes rope_scale and rope_theta (default, linear)";
    case Entry::kLlama31:
      // apply_llama31_rope_pos_ids(rope_scale, rope_theta, low_freq_factor, high_freq_factor,
      // old_context_len): pos_enc.cuh:1821-1824 form smooth_a / smooth_b from them
      if (f.scheme != ROPECHECK_SCHEME_LLAMA3) return "scheme: apply_llama31_rope_pos_ids is Llama 3.1's";
      a.rope_scale = static_cast<float>(f.factor);
      a.low_freq_factor = static_cast<float>(f.low_freq_factor);
      a.high_freq_factor = static_cast<float>(f.high_freq_factor);
      a.old_context_length = static_cast<float>(f.original_max_position);
      return (*out = a, "");
    case Entry::kCosSinCache:
      return (*out = a, "");  // the caller's cache carries the scheme
  }
  return "unknown entry";
}

bool head_dim_dispatched(int head_dim) {
  return head_dim == 64 || head_dim == 128 || head_dim == 256 || head_dim == 512;
}

int vector_size(Entry e, int head_dim, int dtype_bytes) {
  if (e == Entry::kCosSinCache && !head_dim_dispatched(head_dim)) return 32 / dtype_bytes;
  return std::max(16 / dtype_bytes, head_dim / 32);
}

std::string vector_fit(Entry e, int head_dim, int rotary_dim, uint32_t layout, int dtype_bytes) {
  const int v = vector_size(e, head_dim, dtype_bytes);
  const int span = layout == ROPECHECK_LAYOUT_HALF_SPLIT ? rotary_dim / 2 : rotary_dim;
  if (span % v == 0) return "";
  return std::string(layout == ROPECHECK_LAYOUT_HALF_SPLIT ? "rotary_dim/2" : "rotary_dim") +
         " not a multiple of FlashInfer's " + std::to_string(v) + "-channel vector";
}

}  // namespace flashinfer_adapter
