// SPDX-License-Identifier: MIT
// The quantized output (ABI 1.8) a kernel granting QUANTIZED_OUTPUT is
// handed with a case: the fp8 dtype, drawn among those it declares, and the
// per-tensor scales of q and k, chosen from the case's largest output
// magnitude so that the scaled values reach where fp8 is hard: near its
// largest finite value, past it (saturation), down in its subnormals, or
// an ordinary scale that is not a power of two (the fp32 product rounds).
// Derived from the case (suite, seed, index) on a stream of its own.
#ifndef ROPECHECK_CORE_CASES_QUANT_OUT_CASE_H_
#define ROPECHECK_CORE_CASES_QUANT_OUT_CASE_H_

#include <string>

#include "core/cases/cases.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Where the scale puts the case's largest magnitude.
enum class QuantReach { kNearMax, kSaturating, kSubnormal, kOrdinary };

struct QuantOutCase {
  ropecheck_kv_dtype_t dtype = ROPECHECK_KV_FP8_E4M3FN;
  float q_scale = 1, k_scale = 1;  // as the kernel reads them (its declared direction)
  QuantReach reach = QuantReach::kOrdinary;
  ropecheck_quant_out_t abi() const { return {sizeof(ropecheck_quant_out_t), dtype, q_scale, k_scale}; }
  // "fp8_e4m3fn, q_scale 3.1 k_scale 1 (x * scale), near the largest finite value"
  std::string describe(const ropecheck_quant_policy_t& policy) const;
};

// The quantized output for case c and a kernel declaring `policy`, whose
// q and k outputs reach |value| <= q_max and k_max (0 or not finite: an
// ordinary scale).
QuantOutCase quant_out_case(const Case& c, const ropecheck_quant_policy_t& policy, double q_max, double k_max);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_QUANT_OUT_CASE_H_
