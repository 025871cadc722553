// SPDX-License-Identifier: MIT
// The definitions of golden/suites/fused_suites.h.
#include "golden/suites/fused_suites.h"

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cases/rng.h"
#include "golden/suites/named_specs.h"
#include "golden/suites/suite_builder.h"

namespace ropecheck::golden {
namespace {

// A case's write, as the suite chooses it.
struct KvChoice {
  ropecheck_kv_cache_kind_t kind = ROPECHECK_KV_CACHE_K_AND_V;
  KvDtype dtype = KvDtype::kF32;
  int block_size = 16;
  std::int64_t extra_blocks = 1;  // beyond those the tokens need: slots scattered over more
  bool hnd = false;
  std::vector<std::int64_t> padding{};  // tokens with slot -1
  std::vector<std::int64_t> slots{};    // explicit slots (else a seeded shuffle of every slot)
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

constexpr ref::HeadShape h8{8, 8}, h16{16, 16};
constexpr auto HS = ROPECHECK_LAYOUT_HALF_SPLIT;
constexpr auto IL = ROPECHECK_LAYOUT_INTERLEAVED;
constexpr auto F32 = ROPECHECK_DTYPE_F32;
constexpr auto F16 = ROPECHECK_DTYPE_F16;
constexpr auto BF16 = ROPECHECK_DTYPE_BF16;
constexpr auto PER_HEAD = ROPECHECK_KV_SCALE_PER_HEAD;
constexpr auto MULTIPLY = ROPECHECK_KV_SCALE_MULTIPLY;
constexpr auto MLA_JOINT = ROPECHECK_KV_CACHE_MLA_JOINT;
constexpr auto MLA_SPLIT = ROPECHECK_KV_CACHE_MLA_SPLIT;

// A case fused with a KV-cache write: the case, then its write.
struct KvRow {
  CaseRow c;
  KvChoice kv;
};

// The KV-cache writes, one row per case, in id order (an id is the case's
// data seed: a new row goes last). The fp8 scales are vLLM's fused-cache
// test's dequantization scales (k 0.7, v 1.3), 2^-4, and 0.01 (|x| / 0.01
// saturates e4m3fn above 4.48), as the gate's draw takes them
// (core/cases/kv_write_case.cc); a multiplying kernel is handed their
// reciprocals. MLA (ABI 1.5): k is k_pe, one head of rotary channels shared
// by every q head; v is the latent kv_c; one per-tensor scale for the whole
// entry.
const KvRow kKvRows[] = {
    {{"kv/f32-cache/nhd/f32", "control: an fp32 cache holds the rotated k itself (scale 1), NHD, blocks of 16",
      default_spec(), h8, HS, F32, {0, 1, 2, 7, 100}},
     {}},
    {{"kv/f16-cache/hnd/block1/f16", "fp16 cache, HND, blocks of one entry, a padding token", default_spec(), h8, IL,
      F16, {3, 9, 40, 511}},
     {.dtype = KvDtype::kF16, .block_size = 1, .extra_blocks = 2, .hnd = true, .padding = {2}}},
    {{"kv/bf16-cache/nhd/gqa/bf16", "bf16 cache, 4 q heads sharing 2 kv heads, a padding token", default_spec(), h8,
      HS, BF16, {5, 6, 4095, 4096, 70}, 4, 2},
     {.dtype = KvDtype::kBF16, .padding = {1}}},
    {{"kv/bf16-cache-of-f32/hnd/f32", "a cache narrower than the activations: fp32 k stored in bf16", default_spec(),
      h8, HS, F32, {1, 2, 3, 1000}, 2, 2},
     {.dtype = KvDtype::kBF16, .hnd = true}},
    {{"kv/e4m3fn/per-tensor/bf16", "fp8 e4m3fn, per-tensor scales k 0.7, v 1.3 divided (vLLM), NHD", default_spec(),
      h8, HS, BF16, {0, 17, 18, 300, 301, 9000}},
     {.dtype = KvDtype::kE4M3FN, .padding = {3}, .k_scale = {0.7f}, .v_scale = {1.3f}}},
    {{"kv/e4m3fn/per-head/hnd/block1/f16", "fp8 e4m3fn with a scale per kv head, HND, blocks of one", default_spec(),
      h8, IL, F16, {2, 4, 8}, 4, 2},
     {.dtype = KvDtype::kE4M3FN, .block_size = 1, .hnd = true, .scale_kind = PER_HEAD,
      .k_scale = {0.7f, 0.0625f}, .v_scale = {1.3f, 1.0f}}},
    {{"kv/e4m3fn/saturating/f32", "fp8 e4m3fn with scale 0.01: values above 4.48 saturate at 448", default_spec(),
      h8, HS, F32, {0, 5, 77, 2048}},
     {.dtype = KvDtype::kE4M3FN, .k_scale = {0.01f}, .v_scale = {0.01f}}},
    {{"kv/e5m2/per-tensor/f32", "fp8 e5m2, per-tensor scales 2^-4 and 0.7", default_spec(500000.0), h8, IL, F32,
      {12, 13, 14, 65536}},
     {.dtype = KvDtype::kE5M2, .padding = {0}, .k_scale = {0.0625f}, .v_scale = {0.7f}}},
    {{"kv/e5m2/per-head/hnd/bf16", "fp8 e5m2 with per-head scales, HND", default_spec(), h8, HS, BF16,
      {7, 8, 9, 10}, 2, 2},
     {.dtype = KvDtype::kE5M2, .hnd = true, .scale_kind = PER_HEAD, .k_scale = {1.3f, 0.7f},
      .v_scale = {0.0625f, 1.3f}}},
    {{"kv/e4m3fn/multiply/bf16",
      "FlashInfer's arithmetic: the fp32 rotated k times a quantization scale (1/0.7), not stored in bf16 first",
      default_spec(), h8, HS, BF16, {1, 64, 4000, 4001}},
     {.dtype = KvDtype::kE4M3FN, .k_scale = {1.0f / 0.7f}, .v_scale = {1.0f / 1.3f}, .direction = MULTIPLY,
      .via_storage = false}},
    {{"kv/e5m2/multiply/per-head/f16", "per-head quantization scales multiplied (TensorRT-LLM, FlashInfer)",
      default_spec(), h8, IL, F16, {3, 30, 300, 3000}, 2, 2},
     {.dtype = KvDtype::kE5M2, .padding = {1}, .scale_kind = PER_HEAD, .k_scale = {16.0f, 1.0f / 0.7f},
      .v_scale = {1.0f / 1.3f, 100.0f}, .direction = MULTIPLY, .via_storage = false}},
    {{"kv/partial-rotary/e4m3fn/bf16",
      "partial rotary, 8 of 16 channels rotate: the other 8 are cached as given (SGLang PR #22868)", default_spec(),
      {16, 8}, HS, BF16, {0, 9, 99, 999}},
     {.dtype = KvDtype::kE4M3FN, .k_scale = {0.7f}, .v_scale = {1.3f}}},
    {{"kv/partial-rotary/f16-cache/hnd/f16", "GPT-J-style partial rotary (4 of 16, interleaved), fp16 cache, HND",
      default_spec(), {16, 4}, IL, F16, {5, 50, 500}},
     {.dtype = KvDtype::kF16, .hnd = true, .padding = {2}}},
    // A prefill of 18 tokens at positions 0..17: slots ascending within
    // block 1, then on in block 3 (a paged cache hands a sequence blocks
    // anywhere in its pool).
    {{"kv/prefill-ascending-slots/f16",
      "a prefill's 18 tokens whose slots ascend across two blocks with a gap between them", default_spec(), h8, HS,
      F16, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, 1, 1},
     {.dtype = KvDtype::kF16, .extra_blocks = 2,
      .slots = {22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 48, 49, 50, 51, 52, 53, 54, 55}}},
    {{"kv/chunked-prefill-offset/e4m3fn/bf16", "a prefill chunk at offset 1000 (positions 1000..1004)",
      default_spec(), h8, IL, BF16, {1000, 1001, 1002, 1003, 1004}},
     {.dtype = KvDtype::kE4M3FN, .k_scale = {0.0625f}, .v_scale = {0.7f}}},
    {{.name = "kv/inverse/e4m3fn/f32", .comment = "the inverse rotation fused with the write", .freq = default_spec(),
      .shape = h8, .layout = HS, .dtype = F32, .positions = {1, 2, 33, 444},
      .direction = ROPECHECK_DIRECTION_INVERSE},
     {.dtype = KvDtype::kE4M3FN, .k_scale = {0.7f}, .v_scale = {1.3f}}},
    {{"kv/long-context/e4m3fn/f32", "positions past 2^20 and 2^24: the angle's error in the cached k", default_spec(),
      h8, HS, F32, {std::int64_t{1} << 20, (std::int64_t{1} << 24) + 1, 123456789}},
     {.dtype = KvDtype::kE4M3FN, .k_scale = {0.7f}, .v_scale = {1.3f}}},
    {{"kv/yarn-mscale/e4m3fn/bf16", "YaRN with its attention factor: the cached k is scaled by it too", mscale_yarn(),
      h8, IL, BF16, {1, 1000, 20000, 150000}},
     {.dtype = KvDtype::kE4M3FN, .padding = {1}, .k_scale = {0.7f}, .v_scale = {1.3f}}},
    {{"kv/decode-batch/e5m2/f16", "a decode batch at unrelated positions, two padding tokens", default_spec(), h8,
      HS, F16, {5, 900, 17, 40000, 3, 123}},
     {.dtype = KvDtype::kE5M2, .padding = {0, 4}, .k_scale = {0.7f}, .v_scale = {1.3f}}},
    {{"kv/mostly-padding/f32",
      "three of four tokens padding, one block: the last slot and slot 0 stay as they were", default_spec(), h8, IL,
      F32, {10, 20, 30, 40}},
     {.dtype = KvDtype::kF32, .extra_blocks = 0, .padding = {0, 1, 3}}},
    {{"mla/joint/e4m3fn/bf16", "MLA's [kv_c | k_pe] entry in fp8 (vLLM's concat_and_cache_mla), kv_c of 32",
      default_spec(), h16, IL, BF16, {4, 5, 6, 7}, 2, 1},
     {.kind = MLA_JOINT, .dtype = KvDtype::kE4M3FN, .padding = {2}, .k_scale = {0.7f}, .v_scale = {0.7f},
      .latent_dim = 32}},
    {{"mla/joint/f32-cache/block1/f32", "MLA's joint entry in fp32, blocks of one", default_spec(), h16, IL, F32,
      {0, 100, 200}, 2, 1},
     {.kind = MLA_JOINT, .dtype = KvDtype::kF32, .block_size = 1, .latent_dim = 16}},
    {{"mla/split/bf16-cache/bf16", "MLA's split caches (FlashInfer's ckv_cache and kpe_cache) in bf16",
      default_spec(), h16, IL, BF16, {11, 12, 13, 4096}, 2, 1},
     {.kind = MLA_SPLIT, .dtype = KvDtype::kBF16, .latent_dim = 32}},
    {{"mla/split/e5m2/f16", "MLA's split caches in fp8 e5m2", default_spec(), h16, HS, F16, {8, 80, 800}, 2, 1},
     {.kind = MLA_SPLIT, .dtype = KvDtype::kE5M2, .padding = {0}, .k_scale = {0.0625f}, .v_scale = {0.0625f},
      .latent_dim = 24}},
};

// DeepSeek-V3's own rope part (qk_rope_head_dim 64, YaRN s = 40,
// interleaved; model_configs.cc), its latent scaled down from 512 to 32:
// the one fused case whose config is read from a published model's.
void add_deepseek_v3(SuiteBuilder& b) {
  for (const ModelConfig& m : model_configs()) {
    if (std::string(m.model) != "DeepSeek-V3") continue;
    const RopeConfig rc = parse_model(m);
    GoldenCase& g = b.add({"mla/joint/deepseek-v3/bf16",
                           "DeepSeek-V3's rope part and YaRN, its [kv_c | k_pe] entry in fp8 (kv_c of 32 for 512)",
                           rc.freq, rc.shape, m.layout, BF16, {0, 4096, 163839}, 1, 1});
    g.model = m.model;
    g.extra_flags.push_back("RealModelConfig");
    add_kv(g, {.kind = MLA_JOINT, .dtype = KvDtype::kE4M3FN, .k_scale = {0.7f}, .v_scale = {0.7f},
               .latent_dim = 32});
  }
}

// The qk-norm (ABI 1.5, schema 5): every head of q and k normalised by
// RMSNorm over its head_dim channels, then rotated. Weights, eps and
// per-head input scales (some heads near eps's order) are qk_norm_case's
// draws for the case; the intermediate is the arithmetic the budgets
// assume: fp32 kept (vLLM's and TensorRT-LLM's fused_qk_norm_rope),
// rounded to the dtype before the weight (transformers' Qwen3RMSNorm) or
// after it (Gemma3RMSNorm).
struct NormRow {
  CaseRow c;
  ropecheck_norm_weight_form_t form;
  ropecheck_norm_intermediate_t intermediate;
};
constexpr auto W = ROPECHECK_NORM_WEIGHT_W;
constexpr auto ONE_PLUS_W = ROPECHECK_NORM_WEIGHT_ONE_PLUS_W;
const NormRow kNormRows[] = {
    {{"qk-norm/w/keep-f32/bf16", "qk-norm w (Qwen3, OLMo 2) kept in fp32 before the rotation (vLLM's fused kernel)",
      default_spec(1000000.0), h16, HS, BF16, {0, 3, 17, 1000}, 2, 1},
     W, ROPECHECK_NORM_KEEP_F32},
    {{"qk-norm/w/round-before-weight/bf16",
      "qk-norm w as transformers' Qwen3RMSNorm: x * rsqrt rounded to bf16, then times the weight in bf16",
      default_spec(1000000.0), h16, HS, BF16, {5, 6, 40, 4095}, 2, 1},
     W, ROPECHECK_NORM_ROUND_BEFORE_WEIGHT},
    {{"qk-norm/one-plus-w/round-after-weight/bf16", "Gemma 3's 1 + w, the fp32 result rounded to bf16 (Gemma3RMSNorm)",
      default_spec(), h16, HS, BF16, {1, 2, 64, 333}, 2, 1},
     ONE_PLUS_W, ROPECHECK_NORM_ROUND_AFTER_WEIGHT},
    {{"qk-norm/one-plus-w/keep-f32/interleaved/f32",
      "1 + w in fp32 with interleaved pairs: a fused path hard-coding NeoX pairs shows (SGLang PR #30342, vLLM #49290)",
      default_spec(), h16, IL, F32, {0, 7, 100}, 2, 2},
     ONE_PLUS_W, ROPECHECK_NORM_KEEP_F32},
    {{"qk-norm/partial-rotary/w/keep-f32/bf16",
      "partial rotary, 8 of 16 channels rotate: the norm's statistic is over all 16, the other 8 hold the normalised "
      "values",
      default_spec(), {16, 8}, HS, BF16, {2, 9, 99}, 2, 1},
     W, ROPECHECK_NORM_KEEP_F32},
};

// The caller's cos/sin cache (ABI 1.6, schema 5): [rows, rotary_dim], cos
// half then sin half, in fp32 or the activation dtype, NaN in the rows no
// position names; positions that are not the token indices, so a kernel
// reading the row of the token index reads NaN.
struct CallerCacheRow {
  CaseRow c;
  ropecheck_dtype_t cache_dtype;
};
const CallerCacheRow kCallerCacheRows[] = {
    {{"caller-cache/f32-cache/half-split/bf16",
      "an fp32 cos/sin cache with bf16 activations (vLLM, FlashInfer): downcasting it to bf16 is SGLang PR #33117",
      default_spec(), h16, HS, BF16, {3, 7, 8, 30}, 2, 1},
     F32},
    {{"caller-cache/bf16-cache/interleaved/bf16", "the cos/sin cache in the activation dtype, bf16, interleaved pairs",
      default_spec(), h16, IL, BF16, {4, 5, 21}, 2, 1},
     BF16},
    {{"caller-cache/f32-cache/interleaved/f32", "an fp32 cos/sin cache with fp32 activations, interleaved",
      default_spec(500000.0), h8, IL, F32, {1, 12, 13, 40}, 2, 2},
     F32},
    {{"caller-cache/f16-cache/half-split/f16", "the cos/sin cache in the activation dtype, fp16", default_spec(), h8,
      HS, F16, {2, 19, 20}, 2, 1},
     F16},
};

}  // namespace

// The rows in id order: the writes, DeepSeek-V3's, the qk-norms, the
// caller's caches.
std::vector<GoldenCase> fused_suite() {
  SuiteBuilder b(5);
  for (const KvRow& r : kKvRows) add_kv(b.add(r.c), r.kv);
  add_deepseek_v3(b);
  for (const NormRow& r : kNormRows) {
    GoldenCase& g = b.add(r.c);
    g.norm = make_golden_norm(g.c, r.form, r.intermediate);
  }
  for (const CallerCacheRow& r : kCallerCacheRows) b.add(r.c).c.caller_cache_dtype = r.cache_dtype;
  return b.take();
}

}  // namespace ropecheck::golden
