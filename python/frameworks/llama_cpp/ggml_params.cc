// SPDX-License-Identifier: MIT
// How llama.cpp turns an HF rope config into ggml_rope_ext's arguments (the
// adapter's one job besides calling ggml). Every value is formed in the
// precision llama.cpp forms it: the GGUF holds float32 keys and tensors, the
// loader and context compute in float. Paths are under vendor/llama.cpp of
// llama-cpp-python 0.3.36.
#include "python/frameworks/llama_cpp/ggml_params.h"

#include <cmath>

namespace ggml_adapter {
namespace {

// conversion/llama.py:298-327 (LlamaModel.generate_extra_tensors): the
// rope_freqs tensor of a Llama 3.1 config, computed by the converter in
// torch float32 (freqs = 1 / base ** (arange(0, dim, 2) / dim)) with the
// band rule, then stored as float32. `dim` there is head_dim; this adapter
// uses the rotary dim, which is head_dim for every Llama 3.1 model.
std::vector<float> llama3_rope_freqs(const ropecheck_freq_spec_t& s, int dim) {
  const float base = static_cast<float>(s.base);
  const double factor = s.factor, lff = s.low_freq_factor, hff = s.high_freq_factor;
  const double old_context_len = static_cast<double>(s.original_max_position);
  const double low_freq_wavelen = old_context_len / lff, high_freq_wavelen = old_context_len / hff;
  std::vector<float> out;
  for (int i = 0; i < dim; i += 2) {
    const float freq = 1.0f / std::pow(base, static_cast<float>(i) / static_cast<float>(dim));
    const float wavelen = static_cast<float>(2 * M_PI) / freq;  // 2 * math.pi / freq: a float32 tensor op
    if (wavelen < high_freq_wavelen) {
      out.push_back(1.0f);
    } else if (wavelen > low_freq_wavelen) {
      out.push_back(static_cast<float>(factor));
    } else {  // float32 tensor arithmetic with Python floats (rounded to float32 operands)
      const float smooth = (static_cast<float>(old_context_len) / wavelen - static_cast<float>(lff)) /
                           static_cast<float>(hff - lff);
      out.push_back(1.0f / ((1.0f - smooth) / static_cast<float>(factor) + smooth));
    }
  }
  return out;
}

// llama-context.cpp:179-181: get_mscale.
float get_mscale(float scale, float mscale) { return scale <= 1.0f ? 1.0f : (0.1f * mscale * std::log(scale) + 1.0f); }

}  // namespace

std::string ggml_rope_args(const ropecheck_freq_spec_t& s, int n_dims, GgmlRopeArgs* a) {
  *a = GgmlRopeArgs{};
  // rope.freq_base, a float32 key (llama-model.cpp:1414-1415; llama-context.cpp:134)
  a->freq_base = static_cast<float>(s.base);
  // n_ctx_orig_yarn: rope.scaling.original_context_length, else n_ctx_train (llama-model.cpp:1410-1411)
  a->n_ctx_orig = static_cast<int>(s.original_max_position);
  switch (s.scheme) {
    case ROPECHECK_SCHEME_DEFAULT:
      break;
    case ROPECHECK_SCHEME_DYNAMIC_NTK:
      // llama.cpp has no dynamic NTK: the table declares NO_RUNTIME_SEQ_LEN, so only seq_len <= L
      // arrives, where HF's dynamic base is the base itself (modeling_rope_utils, max(seq_len, L) = L).
      break;
    case ROPECHECK_SCHEME_NTK_AWARE:
      // llama.cpp has no NTK-aware type: a user passes the scaled base as --rope-freq-base
      // (cparams.rope_freq_base, llama-context.cpp:134), b s^(d/(d-2)) in double, a float parameter.
      a->freq_base = static_cast<float>(s.base * std::pow(s.factor, static_cast<double>(n_dims) / (n_dims - 2)));
      break;
    case ROPECHECK_SCHEME_LINEAR:
      // rope.scaling.factor (float32) -> rope_freq_scale_train = 1.0f / factor (llama-model.cpp:1422-1428)
      a->freq_scale = 1.0f / static_cast<float>(s.factor);
      break;
    case ROPECHECK_SCHEME_YARN: {
      if (s.has_attention_factor)  // declared away: NO_EXPLICIT_ATTENTION_FACTOR (the caller never sends it)
        return "an explicit attention_factor: llama-context.cpp:198-203 replaces yarn_attn_factor whenever "
               "yarn_ext_factor != 0";
      // conversion/base.py:1469-1482 writes type yarn, factor, original_max_position_embeddings and the betas
      a->freq_scale = 1.0f / static_cast<float>(s.factor);
      a->ext_factor = 1.0f;  // llama-context.cpp:173-175: yarn_ext_factor 1 for the YaRN type
      // the betas as a loader that reads rope.scaling.yarn_beta_* takes them (models/mistral3.cpp:7-8)
      a->beta_fast = static_cast<float>(s.beta_fast);
      a->beta_slow = static_cast<float>(s.beta_slow);
      // llama-context.cpp:177-214 (no rope.scaling.yarn_log_multiplier: the generic converter writes none,
      // conversion/base.py:1483): attn = get_mscale(factor, 1) / (1 + 0.1 ln factor) * rope_attn_factor (1);
      // ggml's rope_yarn multiplies it by 1 + 0.1 ln(1/freq_scale) again (ops.cpp:6198-6199).
      const float factor = 1.0f / a->freq_scale;
      float attn = get_mscale(factor, 1.0f);
      attn *= 1.0f / (1.0f + 0.1f * std::log(factor));
      a->attn_factor = attn * 1.0f;
      break;
    }
    case ROPECHECK_SCHEME_LLAMA3:
      // no scaling type (conversion/base.py:1490-1492): freq_scale 1, the per-pair rope_freqs tensor divides theta
      a->freq_factors = llama3_rope_freqs(s, n_dims);
      break;
    case ROPECHECK_SCHEME_LONGROPE: {
      if (s.has_attention_factor)  // declared away: NO_EXPLICIT_ATTENTION_FACTOR
        return "an explicit attention_factor: conversion/phi.py:195-202 derives its own";
      // rope_long / rope_short (conversion/phi.py:213-214, float32), chosen by llama_model::get_rope_factors
      // (llama-model.cpp:2337-2350): long when the context (n_ctx_seq, here the case's seq_len) exceeds
      // n_ctx_orig_yarn.
      const double* list = s.seq_len > s.original_max_position ? s.long_factor : s.short_factor;
      for (int i = 0; i < n_dims / 2; ++i) a->freq_factors.push_back(static_cast<float>(list[i]));
      // rope.scaling.attn_factor (conversion/phi.py:195-202, Python floats stored as float32) multiplies
      // yarn_attn_factor (llama-context.cpp:214); ext_factor 0, so ggml uses it as it is.
      const double scale = s.factor;
      const double attn =
          scale > 1.0 ? std::sqrt(1 + std::log(scale) / std::log(static_cast<double>(s.original_max_position))) : 1.0;
      a->attn_factor = 1.0f * static_cast<float>(attn);
      break;
    }
    default:
      return "scheme " + std::to_string(s.scheme) + ": llama.cpp has no per-pair frequency list";
  }
  return "";
}

}  // namespace ggml_adapter
