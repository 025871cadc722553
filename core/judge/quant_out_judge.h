// SPDX-License-Identifier: MIT
// The verdict on a quantized rotated output (ABI 1.8): each element of q
// (and of k, where the kernel declares k quantized) judged as the fp8 code
// it must be, with E9's admissible codes (core/error_model/
// cache_write_budget.h: the same rounding of a scaled value a KV cache's
// fp8 write makes, docs/ERROR_MODEL.md "E11"): the exact rotated value, the
// rotation's budget before the kernel's own rounding as the error before
// the scale, the case's scale in the direction the kernel declares, its
// saturation. Pass-through channels are the input, quantized alike.
#ifndef ROPECHECK_CORE_JUDGE_QUANT_OUT_JUDGE_H_
#define ROPECHECK_CORE_JUDGE_QUANT_OUT_JUDGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/cases/quant_out_case.h"
#include "core/error_model/cache_write_budget.h"
#include "core/error_model/error_model.h"
#include "core/judge/judge.h"
#include "core/kernel/kernel_call.h"

namespace ropecheck {

struct QuantOutElement {
  int w = 0;  // 0: q, 1: k
  std::int64_t token = 0;
  int head = 0, channel = 0;
  std::size_t byte = 0;  // the code's byte in run.out.bytes[w]
  CacheElementBudget budget;
};

// The policy of E9 a table's quant_policy declares for the case's dtype.
CacheWritePolicy quant_write_policy(const ropecheck_quant_policy_t& p, ropecheck_kv_dtype_t d);

// Every element the quantized outputs of q must hold (and k's, when
// `with_k`), on the reference's judged tokens.
std::vector<QuantOutElement> quant_out_elements(const JudgedCase& j, const ErrorModel& em, const CacheWritePolicy& policy,
                                                const QuantOutCase& q, bool with_k);

struct QuantOutVerdict {
  std::string first;       // the first element outside its codes, named; "" when none
  std::int64_t worst = 0;  // the most codes any element lies outside
  double tightness = 0;    // E9's, at most 1 for a correct kernel (kv_cache_judge.h)
};
QuantOutVerdict judge_quant_out(const Case& c, const KernelRun& run, const std::vector<QuantOutElement>& elements,
                                KvDtype d);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_JUDGE_QUANT_OUT_JUDGE_H_
