// SPDX-License-Identifier: MIT
// The quantized output (ABI 1.8) as a part of a kernel call (call_part.h):
// where the call's options carry one (core/cases/quant_out_case.h), the
// params point at it and q_out (k_out as the table declares) receives fp8
// codes, one byte per element, into the output buffers the q/k part
// poisoned (a code per element fits where the storage dtype's was).
#ifndef ROPECHECK_CORE_KERNEL_CALL_PARTS_QUANT_OUT_PART_H_
#define ROPECHECK_CORE_KERNEL_CALL_PARTS_QUANT_OUT_PART_H_

#include <cstring>

#include "core/kernel/call_parts/call_part.h"

namespace ropecheck {

class QuantOutPart : public CallPart {
 public:
  bool set_up(CallSetup& s) override;
  std::string changed(const CallSetup& s) const override;

 private:
  bool given_ = false;
  ropecheck_quant_out_t qo_{}, before_{};
};

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_CALL_PARTS_QUANT_OUT_PART_H_
