// SPDX-License-Identifier: MIT
// A golden case's cos/sin cache passed in by the caller (ABI 1.6,
// CALLER_COS_SIN_CACHE: vLLM's and FlashInfer's [max_pos, rotary_dim]
// cos_sin_cache, cos half then sin half) in an export (manifest schema 5).
// The case fixes its dtype (Case::caller_cache_dtype: fp32, or the
// activation dtype); the cache is core/kernel/caller_cos_sin_cache.h's, the
// one the gate hands a kernel: row p holds m cos(p w_i) then m sin(p w_i),
// each exact value rounded once to the dtype, for every position a token
// names, and a quiet NaN in every other row (a kernel reading another row
// puts NaN into its output). The exported budgets are those of a kernel
// reading it (E4c: no angle of its own, the cache's one rounding); a kernel
// must not write into it.
//
// manifest.json, per caller-cache case:
//   "cosSinCache": {"dtype": "f32", "rows": 31}
#ifndef ROPECHECK_GOLDEN_FUSED_COS_SIN_CACHE_GOLDEN_H_
#define ROPECHECK_GOLDEN_FUSED_COS_SIN_CACHE_GOLDEN_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cases/cases.h"
#include "golden/formats/tensor_file.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::golden {

struct GoldenCosSinCache {
  ropecheck_dtype_t dtype = ROPECHECK_DTYPE_F32;
  std::int64_t rows = 0;  // the largest position + 1
};

// Case c's (c.caller_cache_dtype set): its rows, and the cache as the
// tensor cos_sin_cache [rows, rotary_dim] in its dtype.
GoldenCosSinCache golden_cos_sin_cache(const Case& c);
Tensor cos_sin_cache_tensor(const Case& c);
// The flags (fused_input_flag_catalog) the cache implies.
std::vector<std::string> cos_sin_cache_flags(const Case& c);

// The manifest's "cosSinCache", and back: the dtype f32, f16 or bf16, and
// fp32 or the case dtype (ABI 1.6's OF_STORAGE); FormatError naming `file`
// and the JSON path otherwise. Its rows are checked against the case's
// positions when the case is read (golden/verify/verifier.cc).
nlohmann::ordered_json cos_sin_cache_to_json(const GoldenCosSinCache& g);
GoldenCosSinCache parse_cos_sin_cache(const nlohmann::json& j, ropecheck_dtype_t case_dtype, const std::string& file,
                                      const std::string& path);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_FUSED_COS_SIN_CACHE_GOLDEN_H_
