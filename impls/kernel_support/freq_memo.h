// SPDX-License-Identifier: MIT
// The engine frequencies of the last spec a thread used, recomputed only when
// the spec changes. A serving engine computes inv_freq once when it loads the
// model; a kernel called once per decode step must not pay a pow() per pair
// per call (for one decode token that would cost more than the rotation).
#ifndef ROPECHECK_IMPLS_KERNEL_SUPPORT_FREQ_MEMO_H_
#define ROPECHECK_IMPLS_KERNEL_SUPPORT_FREQ_MEMO_H_

#include <cstdint>
#include <vector>

#include "impls/kernel_support/engine_freqs.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck::impl {

class FreqMemo {
 public:
  // engine_frequencies<double>(spec, rotary_dim), from the memo when spec has
  // the same fields and array contents (bit for bit) as the last call's.
  // `*changed` (if given) says whether they were recomputed.
  const EngineFreqs<double>& get(const ropecheck_freq_spec_t& spec, int rotary_dim, bool* changed = nullptr);

 private:
  bool same(const ropecheck_freq_spec_t& spec, int rotary_dim) const;

  bool valid_ = false;
  int rotary_dim_ = 0;
  ropecheck_freq_spec_t spec_{};
  // Copies of the arrays the spec pointed to (the caller may reuse its buffer).
  std::vector<double> short_factor_, long_factor_, inv_freq_;
  EngineFreqs<double> freqs_;
};

}  // namespace ropecheck::impl

#endif  // ROPECHECK_IMPLS_KERNEL_SUPPORT_FREQ_MEMO_H_
