// SPDX-License-Identifier: MIT
// The golden suites: fixed lists of cases, each a pure function of the
// suite name (no clock, no machine-dependent value), so two exports of a
// suite are the same bytes anywhere.
//   smoke        16 tiny cases, one per bug class of note, and one case per
//                multi-axis model (axis_suites.h); committed under
//                golden/vectors/smoke and compared byte for byte in CI.
//   standard     every layout x scheme x dtype, the real model configs of
//                model_configs.h in fp32 and bf16, the control cases, and
//                the multi-axis models in fp32 and bf16.
//   long-context positions up to 2^20, past 2^24 and past int32.
//   fused        RoPE fused with a paged KV-cache write (fused_suites.h),
//                manifest schema 4; committed under golden/vectors/fused.
#ifndef ROPECHECK_GOLDEN_SUITES_SUITES_H_
#define ROPECHECK_GOLDEN_SUITES_SUITES_H_

#include <optional>
#include <string>
#include <vector>

#include "core/cases/cases.h"
#include "core/config/config.h"
#include "core/config/model_rope.h"
#include "golden/fused/kv_golden.h"
#include "golden/fused/qk_norm_golden.h"

namespace ropecheck::golden {

struct GoldenCase {
  int id = 0;            // 1-based, stable within a suite
  std::string name;      // short slug, e.g. "yarn/interleaved/bf16"
  std::string comment;   // why the case exists
  std::string model;     // published model the config is taken from, or ""
  Case c;                // config, shapes, positions and data seed (contiguous, in place)
  std::vector<std::string> extra_flags;  // flags not derivable from c (RealModelConfig)
  // A fused case (manifest schema 4): the KV-cache write it makes, complete
  // (v and the caches before filled: fill_golden_kv).
  std::optional<GoldenKv> kv;
  // A qk-norm case (manifest schema 5): the norm it is called with and the
  // arithmetic its budgets assume. A case reading the caller's cos/sin
  // cache (schema 5) fixes its dtype in c.caller_cache_dtype.
  std::optional<GoldenNorm> norm;
};

std::vector<std::string> golden_suite_names();
// Throws std::invalid_argument naming the known suites for an unknown name.
std::vector<GoldenCase> build_golden_suite(const std::string& name);

// The golden cases of one model's config.json (golden export --config):
// per layer type, each sequence-length variant of config_variants (LongRoPE
// and dynamic NTK at L - 1, L, L + 1 and the max context) in every storage
// dtype, positions up to the model's context, heads scaled down with the
// model's grouping. Names: "<model>/<layer type>[/seq_len=N]/<dtype>".
// A model with M-RoPE (mrope_section) gets multi-axis positions.
// kCommitted is the size committed beside the zoo (golden/zoo/vectors/):
// fp32 only, 2 tokens, one q and one kv head, the same layer types and
// variants; kFull (the default) is what export --config writes on demand.
enum class ConfigSuiteSize { kFull, kCommitted };
std::vector<GoldenCase> build_config_suite(const ModelRope& m, const std::string& model,
                                           ConfigSuiteSize size = ConfigSuiteSize::kFull);

// A published model's rope configuration, as its config.json states it.
struct ModelConfig {
  const char* model;
  const char* source;  // where the values are published
  ropecheck_layout_t layout;
  const char* config_json;  // the rope-relevant part of its config.json
  int q_heads, kv_heads;    // heads per token in the golden case (scaled down)
};
const std::vector<ModelConfig>& model_configs();
RopeConfig parse_model(const ModelConfig& m);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_SUITES_SUITES_H_
