// SPDX-License-Identifier: MIT
// The fused golden suite (`golden export --suite fused`, manifest schema 4,
// issue #32): RoPE fused with the write of k and v into a paged KV cache, as
// vLLM, SGLang and FlashInfer ship it. Every case carries its write
// (golden/fused/kv_golden.h): NHD and HND caches, blocks of 1 and 16 entries,
// padding tokens (slot -1), partial rotary with its pass-through channels
// cached, every cache dtype (f32, f16, bf16, fp8 e4m3fn and e5m2, fp8 with
// per-tensor and per-head scales, divided by (vLLM) or multiplied with
// (FlashInfer), saturating), a prefill whose slots ascend across blocks,
// and MLA's latent caches (DeepSeek's [kv_c | k_pe] entry, and FlashInfer's
// split ckv / kpe caches); then (schema 5) the qk-norm before the rotation
// (golden/fused/qk_norm_golden.h: w and 1 + w, fp32 kept or rounded to the
// dtype, partial rotary) and the caller's cos/sin cache
// (golden/fused/cos_sin_cache_golden.h: fp32 and the activation dtype, both
// layouts). Small: one or two kv heads of 8 or 16 channels,
// a few tokens, so the committed vectors stay small.
#ifndef ROPECHECK_GOLDEN_SUITES_FUSED_SUITES_H_
#define ROPECHECK_GOLDEN_SUITES_FUSED_SUITES_H_

#include <vector>

#include "golden/suites/suites.h"

namespace ropecheck::golden {

std::vector<GoldenCase> fused_suite();

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_SUITES_FUSED_SUITES_H_
