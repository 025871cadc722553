// SPDX-License-Identifier: MIT
// The arguments llama.cpp hands ggml_rope_ext for a frequency spec: what its
// converter (convert_hf_to_gguf.py and conversion/*.py) writes into a GGUF
// from an HF config and what its loader and context (src/llama-model.cpp,
// src/llama-context.cpp) make of it. Line numbers are those of the
// llama.cpp vendored in llama-cpp-python 0.3.36 (vendor/llama.cpp).
#ifndef ROPECHECK_FRAMEWORKS_LLAMA_CPP_GGML_PARAMS_H_
#define ROPECHECK_FRAMEWORKS_LLAMA_CPP_GGML_PARAMS_H_

#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"

namespace ggml_adapter {

struct GgmlRopeArgs {
  float freq_base = 10000.0f;
  float freq_scale = 1.0f;
  float ext_factor = 0.0f;
  float attn_factor = 1.0f;
  float beta_fast = 32.0f;
  float beta_slow = 1.0f;
  int n_ctx_orig = 0;
  std::vector<float> freq_factors;  // empty: no `c` tensor
};

// The arguments for `spec` at rotary dim `n_dims`, or an empty string's
// opposite: the reason llama.cpp has no way to express the spec (then
// `out` is unusable).
std::string ggml_rope_args(const ropecheck_freq_spec_t& spec, int n_dims, GgmlRopeArgs* out);

}  // namespace ggml_adapter

#endif  // ROPECHECK_FRAMEWORKS_LLAMA_CPP_GGML_PARAMS_H_
