// SPDX-License-Identifier: MIT
#include "golden/suites/fused_suites.h"

#include <numeric>
#include <stdexcept>
#include <string>

#include "core/cases/rng.h"
#include "golden/suites/suite_builder.h"

namespace ropecheck::golden {
namespace {

// A case's write, as the suite chooses it.
struct KvChoice {
  ropecheck_kv_cache_kind_t kind = ROPECHECK_KV_CACHE_K_AND_V;
  CacheDtype dtype = CacheDtype::kF32;
  int block_size = 16;
  std::int64_t extra_blocks = 1;  // beyond those the tokens need: slots scattered over more
  bool hnd = false;
  std::vector<std::int64_t> padding;  // tokens with slot -1
  std::vector<std::int64_t> slots;    // explicit slots (else a seeded shuffle of every slot)
  ropecheck_kv_scale_kind_t scale_kind = ROPECHECK_KV_SCALE_PER_TENSOR;
  std::vector<float> k_scale{1.0f}, v_scale{1.0f};
  ropecheck_kv_scale_direction_t direction = ROPECHECK_KV_SCALE_DIVIDE;
  bool saturate = true, via_storage = true;
  int latent_dim = 0;
};

// The write on g's case: the layout's strides, the slots (distinct, drawn
// from the case's seed on a stream of its own unless given), v and the
// caches before the call (fill_golden_kv).
void add_kv(GoldenCase& g, const KvChoice& k) {
  GoldenKv kv;
  KvWriteCase& w = kv.spec;
  const Case& c = g.c;
  w.kind = k.kind;
  w.dtype = k.dtype;
  w.block_size = k.block_size;
  w.hnd = k.hnd;
  w.kv_heads = c.kv_heads;
  w.head_dim = c.shape.head_dim;
  w.latent_dim = k.latent_dim;
  w.num_blocks = (c.tokens + k.block_size - 1) / k.block_size + k.extra_blocks;
  w.scale_kind = k.scale_kind;
  w.k_scale = k.k_scale;
  w.v_scale = k.v_scale;
  lay_out_kv_write(&w);
  Rng rng(c.data_seed, 0x6b76'736c'6f74'7331ull);  // "kvslots1"
  if (!k.slots.empty()) {
    w.slots = k.slots;
  } else {
    std::vector<std::int64_t> all(static_cast<std::size_t>(w.num_blocks * w.block_size));
    std::iota(all.begin(), all.end(), 0);
    for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng.below(i)]);
    w.slots.assign(all.begin(), all.begin() + c.tokens);
  }
  for (std::int64_t t : k.padding) w.slots.at(static_cast<std::size_t>(t)) = -1;
  w.v_seed = rng.bits();
  kv.direction = k.direction;
  kv.saturate = k.saturate;
  kv.via_storage = k.via_storage;
  const std::size_t scales = k.scale_kind == ROPECHECK_KV_SCALE_PER_HEAD ? static_cast<std::size_t>(c.kv_heads) : 1;
  if (w.k_scale.size() != scales || w.v_scale.size() != scales)
    throw std::logic_error(g.name + ": " + std::to_string(scales) + " scale(s) each for k and v");
  fill_golden_kv(c, rng.bits(), &kv);
  g.kv = std::move(kv);
}

ref::FreqSpec yarn_spec() {
  ref::FreqSpec f;
  f.scheme = ROPECHECK_SCHEME_YARN;
  f.base = 10000;
  f.factor = 40;
  f.original_max_position = 4096;
  f.mscale = 1.0;
  f.mscale_all_dim = 0.707;
  return f;
}

}  // namespace

std::vector<GoldenCase> fused_suite() {
  SuiteBuilder b(5);
  const ref::HeadShape h8{8, 8}, h16{16, 16};
  constexpr auto HS = ROPECHECK_LAYOUT_HALF_SPLIT;
  constexpr auto IL = ROPECHECK_LAYOUT_INTERLEAVED;
  constexpr auto F32 = ROPECHECK_DTYPE_F32;
  constexpr auto F16 = ROPECHECK_DTYPE_F16;
  constexpr auto BF16 = ROPECHECK_DTYPE_BF16;
  // vLLM's fused-cache test's fp8 dequantization scales (k 0.7, v 1.3),
  // 2^-4, and 0.01 (|x| / 0.01 saturates e4m3fn above 4.48), as the gate's
  // draw takes them (core/cases/kv_write_case.cc); a multiplying kernel is
  // handed their reciprocals.
  KvChoice k;

  k = {};
  add_kv(b.add("kv/f32-cache/nhd/f32", "control: an fp32 cache holds the rotated k itself (scale 1), NHD, blocks of 16",
               default_spec(), h8, HS, F32, {0, 1, 2, 7, 100}),
         k);
  k = {};
  k.dtype = CacheDtype::kF16;
  k.block_size = 1;
  k.extra_blocks = 2;
  k.hnd = true;
  k.padding = {2};
  add_kv(b.add("kv/f16-cache/hnd/block1/f16", "fp16 cache, HND, blocks of one entry, a padding token",
               default_spec(), h8, IL, F16, {3, 9, 40, 511}),
         k);
  k = {};
  k.dtype = CacheDtype::kBF16;
  k.padding = {1};
  add_kv(b.add("kv/bf16-cache/nhd/gqa/bf16", "bf16 cache, 4 q heads sharing 2 kv heads, a padding token",
               default_spec(), h8, HS, BF16, {5, 6, 4095, 4096, 70}, 4, 2),
         k);
  k = {};
  k.dtype = CacheDtype::kBF16;
  k.hnd = true;
  add_kv(b.add("kv/bf16-cache-of-f32/hnd/f32", "a cache narrower than the activations: fp32 k stored in bf16",
               default_spec(), h8, HS, F32, {1, 2, 3, 1000}, 2, 2),
         k);
  k = {};
  k.dtype = CacheDtype::kE4M3FN;
  k.k_scale = {0.7f};
  k.v_scale = {1.3f};
  k.padding = {3};
  add_kv(b.add("kv/e4m3fn/per-tensor/bf16", "fp8 e4m3fn, per-tensor scales k 0.7, v 1.3 divided (vLLM), NHD",
               default_spec(), h8, HS, BF16, {0, 17, 18, 300, 301, 9000}),
         k);
  k = {};
  k.dtype = CacheDtype::kE4M3FN;
  k.scale_kind = ROPECHECK_KV_SCALE_PER_HEAD;
  k.k_scale = {0.7f, 0.0625f};
  k.v_scale = {1.3f, 1.0f};
  k.hnd = true;
  k.block_size = 1;
  add_kv(b.add("kv/e4m3fn/per-head/hnd/block1/f16", "fp8 e4m3fn with a scale per kv head, HND, blocks of one",
               default_spec(), h8, IL, F16, {2, 4, 8}, 4, 2),
         k);
  k = {};
  k.dtype = CacheDtype::kE4M3FN;
  k.k_scale = {0.01f};
  k.v_scale = {0.01f};
  add_kv(b.add("kv/e4m3fn/saturating/f32", "fp8 e4m3fn with scale 0.01: values above 4.48 saturate at 448",
               default_spec(), h8, HS, F32, {0, 5, 77, 2048}),
         k);
  k = {};
  k.dtype = CacheDtype::kE5M2;
  k.k_scale = {0.0625f};
  k.v_scale = {0.7f};
  k.padding = {0};
  add_kv(b.add("kv/e5m2/per-tensor/f32", "fp8 e5m2, per-tensor scales 2^-4 and 0.7", default_spec(500000.0), h8, IL,
               F32, {12, 13, 14, 65536}),
         k);
  k = {};
  k.dtype = CacheDtype::kE5M2;
  k.scale_kind = ROPECHECK_KV_SCALE_PER_HEAD;
  k.k_scale = {1.3f, 0.7f};
  k.v_scale = {0.0625f, 1.3f};
  k.hnd = true;
  add_kv(b.add("kv/e5m2/per-head/hnd/bf16", "fp8 e5m2 with per-head scales, HND", default_spec(), h8, HS, BF16,
               {7, 8, 9, 10}, 2, 2),
         k);
  k = {};
  k.dtype = CacheDtype::kE4M3FN;
  k.k_scale = {1.0f / 0.7f};
  k.v_scale = {1.0f / 1.3f};
  k.direction = ROPECHECK_KV_SCALE_MULTIPLY;
  k.via_storage = false;
  add_kv(b.add("kv/e4m3fn/multiply/bf16",
               "FlashInfer's arithmetic: the fp32 rotated k times a quantization scale (1/0.7), not stored in bf16 "
               "first",
               default_spec(), h8, HS, BF16, {1, 64, 4000, 4001}),
         k);
  k = {};
  k.dtype = CacheDtype::kE5M2;
  k.scale_kind = ROPECHECK_KV_SCALE_PER_HEAD;
  k.k_scale = {16.0f, 1.0f / 0.7f};
  k.v_scale = {1.0f / 1.3f, 100.0f};
  k.direction = ROPECHECK_KV_SCALE_MULTIPLY;
  k.via_storage = false;
  k.padding = {1};
  add_kv(b.add("kv/e5m2/multiply/per-head/f16", "per-head quantization scales multiplied (TensorRT-LLM, FlashInfer)",
               default_spec(), h8, IL, F16, {3, 30, 300, 3000}, 2, 2),
         k);
  k = {};
  k.dtype = CacheDtype::kE4M3FN;
  k.k_scale = {0.7f};
  k.v_scale = {1.3f};
  add_kv(b.add("kv/partial-rotary/e4m3fn/bf16", "partial rotary, 8 of 16 channels rotate: the other 8 are cached as "
               "given (SGLang PR #22868)",
               default_spec(), {16, 8}, HS, BF16, {0, 9, 99, 999}),
         k);
  k = {};
  k.dtype = CacheDtype::kF16;
  k.hnd = true;
  k.padding = {2};
  add_kv(b.add("kv/partial-rotary/f16-cache/hnd/f16", "GPT-J-style partial rotary (4 of 16, interleaved), fp16 cache, HND",
               default_spec(), {16, 4}, IL, F16, {5, 50, 500}),
         k);
  k = {};
  k.dtype = CacheDtype::kF16;
  k.extra_blocks = 2;
  // A prefill of 18 tokens: slots ascending within block 1, then on in
  // block 3 (a paged cache hands a sequence blocks anywhere in its pool).
  for (std::int64_t s = 22; s < 32; ++s) k.slots.push_back(s);
  for (std::int64_t s = 48; s < 56; ++s) k.slots.push_back(s);
  {
    std::vector<std::int64_t> pos(18);
    std::iota(pos.begin(), pos.end(), 0);
    add_kv(b.add("kv/prefill-ascending-slots/f16",
                 "a prefill's 18 tokens whose slots ascend across two blocks with a gap between them",
                 default_spec(), h8, HS, F16, pos, 1, 1),
           k);
  }
  k = {};
  k.dtype = CacheDtype::kE4M3FN;
  k.k_scale = {0.0625f};
  k.v_scale = {0.7f};
  add_kv(b.add("kv/chunked-prefill-offset/e4m3fn/bf16", "a prefill chunk at offset 1000 (positions 1000..1004)",
               default_spec(), h8, IL, BF16, {1000, 1001, 1002, 1003, 1004}),
         k);
  k = {};
  k.dtype = CacheDtype::kE4M3FN;
  k.k_scale = {0.7f};
  k.v_scale = {1.3f};
  {
    GoldenCase& g = b.add("kv/inverse/e4m3fn/f32", "the inverse rotation fused with the write", default_spec(), h8, HS,
                          F32, {1, 2, 33, 444});
    g.c.direction = ROPECHECK_DIRECTION_INVERSE;
    add_kv(g, k);
  }
  k = {};
  k.dtype = CacheDtype::kE4M3FN;
  k.k_scale = {0.7f};
  k.v_scale = {1.3f};
  add_kv(b.add("kv/long-context/e4m3fn/f32", "positions past 2^20 and 2^24: the angle's error in the cached k",
               default_spec(), h8, HS, F32, {std::int64_t{1} << 20, (std::int64_t{1} << 24) + 1, 123456789}),
         k);
  k = {};
  k.dtype = CacheDtype::kE4M3FN;
  k.k_scale = {0.7f};
  k.v_scale = {1.3f};
  k.padding = {1};
  add_kv(b.add("kv/yarn-mscale/e4m3fn/bf16", "YaRN with its attention factor: the cached k is scaled by it too",
               yarn_spec(), h8, IL, BF16, {1, 1000, 20000, 150000}),
         k);
  k = {};
  k.dtype = CacheDtype::kE5M2;
  k.k_scale = {0.7f};
  k.v_scale = {1.3f};
  k.padding = {0, 4};
  add_kv(b.add("kv/decode-batch/e5m2/f16", "a decode batch at unrelated positions, two padding tokens",
               default_spec(), h8, HS, F16, {5, 900, 17, 40000, 3, 123}),
         k);
  k = {};
  k.dtype = CacheDtype::kF32;
  k.padding = {0, 1, 3};
  k.extra_blocks = 0;
  add_kv(b.add("kv/mostly-padding/f32", "three of four tokens padding, one block: the last slot and slot 0 stay as they were",
               default_spec(), h8, IL, F32, {10, 20, 30, 40}),
         k);
  // MLA (ABI 1.5): k is k_pe, one head of rotary channels shared by every
  // q head; v is the latent kv_c; one per-tensor scale for the whole entry.
  k = {};
  k.kind = ROPECHECK_KV_CACHE_MLA_JOINT;
  k.dtype = CacheDtype::kE4M3FN;
  k.latent_dim = 32;
  k.k_scale = k.v_scale = {0.7f};
  k.padding = {2};
  add_kv(b.add("mla/joint/e4m3fn/bf16", "MLA's [kv_c | k_pe] entry in fp8 (vLLM's concat_and_cache_mla), kv_c of 32",
               default_spec(), h16, IL, BF16, {4, 5, 6, 7}, 2, 1),
         k);
  k = {};
  k.kind = ROPECHECK_KV_CACHE_MLA_JOINT;
  k.dtype = CacheDtype::kF32;
  k.latent_dim = 16;
  k.block_size = 1;
  add_kv(b.add("mla/joint/f32-cache/block1/f32", "MLA's joint entry in fp32, blocks of one", default_spec(), h16, IL,
               F32, {0, 100, 200}, 2, 1),
         k);
  k = {};
  k.kind = ROPECHECK_KV_CACHE_MLA_SPLIT;
  k.dtype = CacheDtype::kBF16;
  k.latent_dim = 32;
  add_kv(b.add("mla/split/bf16-cache/bf16", "MLA's split caches (FlashInfer's ckv_cache and kpe_cache) in bf16",
               default_spec(), h16, IL, BF16, {11, 12, 13, 4096}, 2, 1),
         k);
  k = {};
  k.kind = ROPECHECK_KV_CACHE_MLA_SPLIT;
  k.dtype = CacheDtype::kE5M2;
  k.latent_dim = 24;
  k.k_scale = k.v_scale = {0.0625f};
  k.padding = {0};
  add_kv(b.add("mla/split/e5m2/f16", "MLA's split caches in fp8 e5m2", default_spec(), h16, HS, F16, {8, 80, 800}, 2, 1),
         k);
  // DeepSeek-V3's own rope part (qk_rope_head_dim 64, YaRN s = 40,
  // interleaved; model_configs.cc), its latent scaled down from 512 to 32.
  for (const ModelConfig& m : model_configs()) {
    if (std::string(m.model) != "DeepSeek-V3") continue;
    const RopeConfig rc = parse_model(m);
    k = {};
    k.kind = ROPECHECK_KV_CACHE_MLA_JOINT;
    k.dtype = CacheDtype::kE4M3FN;
    k.latent_dim = 32;
    k.k_scale = k.v_scale = {0.7f};
    GoldenCase& g = b.add("mla/joint/deepseek-v3/bf16", "DeepSeek-V3's rope part and YaRN, its [kv_c | k_pe] entry in "
                          "fp8 (kv_c of 32 for 512)",
                          rc.freq, rc.shape, m.layout, BF16, {0, 4096, 163839}, 1, 1);
    g.model = m.model;
    g.extra_flags.push_back("RealModelConfig");
    add_kv(g, k);
  }
  // The qk-norm (ABI 1.5, schema 5): every head of q and k normalised by
  // RMSNorm over its head_dim channels, then rotated. Weights, eps and
  // per-head input scales (some heads near eps's order) are qk_norm_case's
  // draws for the case; the intermediate is the arithmetic the budgets
  // assume: fp32 kept (vLLM's and TensorRT-LLM's fused_qk_norm_rope),
  // rounded to the dtype before the weight (transformers' Qwen3RMSNorm) or
  // after it (Gemma3RMSNorm).
  constexpr auto W = ROPECHECK_NORM_WEIGHT_W;
  constexpr auto ONE_PLUS_W = ROPECHECK_NORM_WEIGHT_ONE_PLUS_W;
  const auto norm = [](GoldenCase& g, ropecheck_norm_weight_form_t form, ropecheck_norm_intermediate_t inter) {
    g.norm = make_golden_norm(g.c, form, inter);
  };
  norm(b.add("qk-norm/w/keep-f32/bf16", "qk-norm w (Qwen3, OLMo 2) kept in fp32 before the rotation (vLLM's fused "
             "kernel)", default_spec(1000000.0), h16, HS, BF16, {0, 3, 17, 1000}, 2, 1),
       W, ROPECHECK_NORM_KEEP_F32);
  norm(b.add("qk-norm/w/round-before-weight/bf16", "qk-norm w as transformers' Qwen3RMSNorm: x * rsqrt rounded to "
             "bf16, then times the weight in bf16", default_spec(1000000.0), h16, HS, BF16, {5, 6, 40, 4095}, 2, 1),
       W, ROPECHECK_NORM_ROUND_BEFORE_WEIGHT);
  norm(b.add("qk-norm/one-plus-w/round-after-weight/bf16", "Gemma 3's 1 + w, the fp32 result rounded to bf16 "
             "(Gemma3RMSNorm)", default_spec(), h16, HS, BF16, {1, 2, 64, 333}, 2, 1),
       ONE_PLUS_W, ROPECHECK_NORM_ROUND_AFTER_WEIGHT);
  norm(b.add("qk-norm/one-plus-w/keep-f32/interleaved/f32", "1 + w in fp32 with interleaved pairs: a fused path "
             "hard-coding NeoX pairs shows (SGLang PR #30342, vLLM #49290)", default_spec(), h16, IL, F32,
             {0, 7, 100}, 2, 2),
       ONE_PLUS_W, ROPECHECK_NORM_KEEP_F32);
  norm(b.add("qk-norm/partial-rotary/w/keep-f32/bf16", "partial rotary, 8 of 16 channels rotate: the norm's "
             "statistic is over all 16, the other 8 hold the normalised values", default_spec(), {16, 8}, HS, BF16,
             {2, 9, 99}, 2, 1),
       W, ROPECHECK_NORM_KEEP_F32);
  // The caller's cos/sin cache (ABI 1.6, schema 5): [rows, rotary_dim],
  // cos half then sin half, in fp32 or the activation dtype, NaN in the rows
  // no position names; positions that are not the token indices, so a
  // kernel reading the row of the token index reads NaN.
  const auto cache = [](GoldenCase& g, ropecheck_dtype_t dtype) { g.c.caller_cache_dtype = dtype; };
  cache(b.add("caller-cache/f32-cache/half-split/bf16", "an fp32 cos/sin cache with bf16 activations (vLLM, "
              "FlashInfer): downcasting it to bf16 is SGLang PR #33117", default_spec(), h16, HS, BF16,
              {3, 7, 8, 30}, 2, 1),
        ROPECHECK_DTYPE_F32);
  cache(b.add("caller-cache/bf16-cache/interleaved/bf16", "the cos/sin cache in the activation dtype, bf16, "
              "interleaved pairs", default_spec(), h16, IL, BF16, {4, 5, 21}, 2, 1),
        BF16);
  cache(b.add("caller-cache/f32-cache/interleaved/f32", "an fp32 cos/sin cache with fp32 activations, interleaved",
              default_spec(500000.0), h8, IL, F32, {1, 12, 13, 40}, 2, 2),
        ROPECHECK_DTYPE_F32);
  cache(b.add("caller-cache/f16-cache/half-split/f16", "the cos/sin cache in the activation dtype, fp16",
              default_spec(), h8, HS, F16, {2, 19, 20}, 2, 1),
        F16);
  return b.take();
}

}  // namespace ropecheck::golden
