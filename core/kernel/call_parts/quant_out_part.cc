// SPDX-License-Identifier: MIT
// The quantized-output part of a kernel call.
#include "core/kernel/call_parts/quant_out_part.h"

#include "core/cases/quant_out_case.h"

namespace ropecheck {

bool QuantOutPart::set_up(CallSetup& s) {
  const QuantOutCase* q = s.o.quant;
  if (q == nullptr) return true;
  if (!(s.impl.caps.flags & ROPECHECK_CAP_QUANTIZED_OUTPUT) || s.c.in_place)  // a caller's error, never the kernel's
    return refuse_call(s, "ropecheck passed a quantized output to a kernel not granting it, or in place");
  given_ = true;
  qo_ = before_ = q->abi();
  s.p.quant_out = &qo_;
  return true;
}

std::string QuantOutPart::changed(const CallSetup&) const {
  if (given_ && std::memcmp(&qo_, &before_, sizeof qo_) != 0) return "wrote into its input quant_out";
  return {};
}

}  // namespace ropecheck
