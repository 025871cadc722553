// SPDX-License-Identifier: MIT
// Host-side unit test of the FlashInfer plugin's argument mapping
// (flashinfer_args.h): what each ropecheck call becomes in FlashInfer's
// launcher arguments and which calls a table declines. build.sh runs it after
// building the plugin (no GPU needed); exits non-zero on the first mismatch.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "python/frameworks/flashinfer/flashinfer_args.h"

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "flashinfer_args_test: FAILED: %s\n", what);
    ++failures;
  }
}

ropecheck_freq_spec_t spec(ropecheck_scheme_t scheme) {
  ropecheck_freq_spec_t f{};
  f.scheme = scheme;
  f.base = 500000.0;
  f.factor = 8.0;
  f.original_max_position = 8192;
  f.low_freq_factor = 1.0;
  f.high_freq_factor = 4.0;
  return f;
}

}  // namespace

int main() {
  using namespace flashinfer_adapter;
  RopeArgs a;
  // default: rope_scale 1 (freq * 1/1 is freq), rope_theta the base
  expect(rope_args(Entry::kPosIds, spec(ROPECHECK_SCHEME_DEFAULT), &a).empty(), "default is taken");
  expect(a.rope_scale == 1.0f && a.rope_theta == 500000.0f, "default: scale 1, theta the base");
  // linear: rope_scale is the factor (pos_enc.cuh:716 multiplies by its reciprocal)
  expect(rope_args(Entry::kPosIds, spec(ROPECHECK_SCHEME_LINEAR), &a).empty() && a.rope_scale == 8.0f,
         "linear: scale the factor");
  expect(!rope_args(Entry::kPosIds, spec(ROPECHECK_SCHEME_YARN), &a).empty(), "pos_ids has no YaRN");
  expect(!rope_args(Entry::kPosIds, spec(ROPECHECK_SCHEME_LLAMA3), &a).empty(), "pos_ids has no Llama 3.1");
  // Llama 3.1: every parameter passed on, old_context_length the original max position
  expect(rope_args(Entry::kLlama31, spec(ROPECHECK_SCHEME_LLAMA3), &a).empty(), "llama3 is taken");
  expect(a.rope_scale == 8.0f && a.low_freq_factor == 1.0f && a.high_freq_factor == 4.0f &&
             a.old_context_length == 8192.0f && a.rope_theta == 500000.0f,
         "llama3: scale, factors, old context length");
  expect(!rope_args(Entry::kLlama31, spec(ROPECHECK_SCHEME_DEFAULT), &a).empty(), "llama31 is Llama 3.1 alone");
  // the base narrowed to float as the binding's double -> float parameter does
  ropecheck_freq_spec_t odd = spec(ROPECHECK_SCHEME_DEFAULT);
  odd.base = 10000.000000001;
  expect(rope_args(Entry::kPosIds, odd, &a).empty() && a.rope_theta == 10000.0f, "theta rounded to float");
  expect(rope_args(Entry::kCosSinCache, spec(ROPECHECK_SCHEME_YARN), &a).empty(), "the cache takes any scheme");

  // DISPATCH_HEAD_DIM's head dims
  for (int d : {64, 128, 256, 512}) expect(head_dim_dispatched(d), "64/128/256/512 dispatched");
  for (int d : {32, 80, 96, 192, 1024}) expect(!head_dim_dispatched(d), "others not");

  // vectors: max(16 / 2, head_dim / 32) channels for fp16/bf16; 16 in RopeQuantize
  expect(vector_size(Entry::kPosIds, 128, 2) == 8, "head_dim 128: 8 channels");
  expect(vector_size(Entry::kPosIds, 512, 2) == 16, "head_dim 512: 16 channels");
  expect(vector_size(Entry::kCosSinCache, 128, 2) == 8, "cache, dispatched head_dim: the pos_ids vector");
  expect(vector_size(Entry::kCosSinCache, 96, 2) == 16, "cache, head_dim 96: RopeQuantize's 16");
  // a full rotation of 128 fits both ways; GPT-NeoX's quarter (32) fits half split (16 % 8 == 0)
  expect(vector_fit(Entry::kPosIds, 128, 128, ROPECHECK_LAYOUT_HALF_SPLIT, 2).empty(), "128/128 half split fits");
  expect(vector_fit(Entry::kPosIds, 128, 32, ROPECHECK_LAYOUT_HALF_SPLIT, 2).empty(), "128/32 half split fits");
  // rotary_dim 24 of 128: half 12 is not a multiple of 8 (a vector straddles the halves); interleaved 24 is
  expect(!vector_fit(Entry::kPosIds, 128, 24, ROPECHECK_LAYOUT_HALF_SPLIT, 2).empty(), "128/24 half split misfits");
  expect(vector_fit(Entry::kPosIds, 128, 24, ROPECHECK_LAYOUT_INTERLEAVED, 2).empty(), "128/24 interleaved fits");
  expect(!vector_fit(Entry::kPosIds, 128, 20, ROPECHECK_LAYOUT_INTERLEAVED, 2).empty(), "128/20 interleaved misfits");
  // head_dim 96 on the cache form: RopeQuantize's 16-channel vector over a full rotation, half 48 fits
  expect(vector_fit(Entry::kCosSinCache, 96, 96, ROPECHECK_LAYOUT_HALF_SPLIT, 2).empty(), "cache 96/96 fits");
  expect(!vector_fit(Entry::kCosSinCache, 80, 80, ROPECHECK_LAYOUT_HALF_SPLIT, 2).empty(), "cache 80/80 misfits");

  // rope_quantize_fp8_append_paged_kv_cache: 16-channel vectors for fp16/bf16
  expect(vector_size(Entry::kRopeQuantizeAppend, 128, 2) == 16, "quant append: 32 / sizeof(DType)");
  // the paged cache: slots 0, 17, padding, 40 of blocks of 16, NHD [5 blocks, 16, 2 heads, 64]
  const int64_t slots[4] = {0, 17, -1, 40};
  float k_scale = 0.5f, v_scale = 0.5f;
  ropecheck_kv_write_t w{};
  w.struct_size = sizeof w;
  w.cache_dtype = ROPECHECK_KV_FP8_E4M3FN;
  w.num_blocks = 5;
  w.block_size = 16;
  w.block_stride = 16 * 2 * 64;
  w.slot_stride = 2 * 64;
  w.head_stride = 64;
  w.slot_mapping = slots;
  w.k_scale = &k_scale;
  w.v_scale = &v_scale;
  unsigned char cache[1], v_in[1];  // pointers the mapping never reads
  w.k_cache = w.v_cache = cache;
  w.v = v_in;
  PagedMapping m = paged_mapping(w, 4);
  expect(m.indptr == std::vector<int32_t>({0, 5}) && m.indices == std::vector<int32_t>({0, 1, 2, 3, 4}) &&
             m.last_page_len == std::vector<int32_t>({16}),
         "one request owning every block in order");
  // FlashInfer's page location indptr[0] * 16 + positions[t], divided by 16, is the slot's block and entry
  expect(m.positions == std::vector<int32_t>({0, 17, 0, 40}) && m.batch_indices == std::vector<int32_t>({0, 0, -1, 0}),
         "positions the slots, padding batch index -1");
  expect(!m.hnd && m.kv_strides[0] == 2048 && m.kv_strides[1] == 128 && m.kv_strides[2] == 64,
         "NHD: {page, n, h} strides");
  w.slot_stride = 64;  // HND [5, 2 heads, 16, 64]
  w.head_stride = 16 * 64;
  m = paged_mapping(w, 4);
  expect(m.hnd && m.kv_strides[1] == 1024 && m.kv_strides[2] == 64, "HND: {page, h, n} strides");
  // the declines
  ropecheck_quant_out_t q{sizeof q, ROPECHECK_KV_FP8_E4M3FN, 2.0f, 1.0f};
  ropecheck_apply_params_t p{};
  p.struct_size = sizeof p;
  p.dtype = ROPECHECK_DTYPE_BF16;
  p.layout = ROPECHECK_LAYOUT_HALF_SPLIT;
  p.head_dim = 128;
  p.rotary_dim = 64;
  p.kv_write = &w;
  expect(!quant_append_decline(p).empty(), "no quant_out: declined");
  p.quant_out = &q;
  expect(quant_append_decline(p).empty(), "bf16, e4m3fn both, one scale, 128/64 half split: taken");
  q.dtype = ROPECHECK_KV_FP8_E5M2;
  expect(!quant_append_decline(p).empty(), "q e5m2, cache e4m3fn: declined (one QuantType)");
  q.dtype = ROPECHECK_KV_FP8_E4M3FN;
  v_scale = 0.25f;
  expect(!quant_append_decline(p).empty(), "k and v scales differ: declined (one quant_scale_kv)");
  v_scale = 0.5f;
  p.rotary_dim = 48;
  expect(!quant_append_decline(p).empty(), "no-rope 80 not a multiple of 48: declined");
  p.rotary_dim = 128;
  p.layout = ROPECHECK_LAYOUT_INTERLEAVED;
  expect(quant_append_decline(p).empty(), "a full interleaved rotation: taken");
  w.v = nullptr;
  expect(!quant_append_decline(p).empty(), "no v: declined (FlashInfer appends one with every k)");
  w.v = v_in;
  p.dtype = ROPECHECK_DTYPE_F32;
  expect(!quant_append_decline(p).empty(), "fp32 inputs: declined");

  if (failures) return 1;
  std::printf("flashinfer_args_test: all passed\n");
  return 0;
}
