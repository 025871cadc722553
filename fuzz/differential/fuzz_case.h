// SPDX-License-Identifier: MIT
// One fuzzer input decoded into what every kernel under test is judged on:
// a case of the one case generator (core/cases/cases.h, its choices read
// from the bytes), multi-axis positions a quarter of the time
// (core/cases/axis_cases.h), the seed and index that the fused parts'
// streams derive from (the KV-cache write of core/cases/kv_write_case.h,
// the qk-norm of qk_norm_case.h, the caller's cos/sin cache dtype of
// cos_sin_cache_case.h, and case_fit's redraws), whether a kernel fused
// with a qk-norm is called with one, the poison its outputs arrive holding,
// and raw bit patterns (NaN, Inf, subnormals, huge values) for the input
// elements the remaining bytes name.
#ifndef ROPECHECK_FUZZ_DIFFERENTIAL_FUZZ_CASE_H_
#define ROPECHECK_FUZZ_DIFFERENTIAL_FUZZ_CASE_H_

#include <cstdint>
#include <vector>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::fuzz {

struct FuzzInput {
  Case drawn;                // as the generator drew it, before any kernel's fit
  bool with_norm = false;    // a QK_NORM kernel gets its qk-norm (else the plain rotation)
  PoisonKind poison = PoisonKind::kNan;
  std::vector<std::uint8_t> raw;  // the bytes left: which elements hold raw bits, and the bits
};

// Small shapes keep the exact reference fast enough to fuzz (3 tokens, 2 kv
// heads, 2 q heads per kv head); positions reach int32 max and below zero.
CaseLimits fuzz_limits();

// Decodes `data`. `multi_axis`: whether any kernel under test takes
// multi-axis positions (else none is drawn: the bytes are not spent on
// cases every kernel would skip).
FuzzInput decode_input(const std::uint8_t* data, std::size_t size, bool multi_axis);

// The case a kernel is judged on: the drawn one redrawn within its
// declaration (core/cases/case_fit.h, as the gate does); a multi-axis case
// outside the declaration (a form of axes it does not take) falls back to
// its axis-0 positions (keep_first_axis) before the fit; a kernel with its
// own cos/sin cache has its ids redrawn below the rows the fuzzer builds.
// The caller still
// asks outside_capabilities: what no redraw can give is skipped.
Case case_for(const ropecheck_impl_t& impl, const Case& drawn);

// The case's inputs (make_inputs: the generator's values, canaries in the
// padding), with raw bit patterns where `raw` puts them: one byte per
// element in walk order (q then k, token, head, channel) while bytes
// remain: its low three bits 0-4 keep the generator's value, 5-7 store the
// next 2 or 4 bytes as the element's bits. `raw_bits` false: the
// generator's values alone (a form whose judge is defined on finite
// inputs only, as the gate draws them).
// *wrote (optional): whether some element took raw bits.
QkBuffers fuzz_inputs(const Case& c, const std::vector<std::uint8_t>& raw, bool raw_bits, bool* wrote = nullptr);

}  // namespace ropecheck::fuzz

#endif  // ROPECHECK_FUZZ_DIFFERENTIAL_FUZZ_CASE_H_
