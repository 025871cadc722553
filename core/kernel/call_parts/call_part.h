// SPDX-License-Identifier: MIT
// One part of a kernel call (core/kernel/kernel_call.h): the q and k
// buffers, the positions, the frequency spec, and one per fused feature of
// the ABI (the KV-cache write, the qk-norm, a cos/sin cache of the kernel's
// own or of the caller's). Each sets itself up from the case and the
// call's options, fills its part of the params, and after the call says
// what of its inputs the kernel changed. A new fused form is a new part:
// a file here and a line in call_kernel's list, not lines inside it.
#ifndef ROPECHECK_CORE_KERNEL_CALL_PARTS_CALL_PART_H_
#define ROPECHECK_CORE_KERNEL_CALL_PARTS_CALL_PART_H_

#include <string>

#include "core/cases/buffers.h"
#include "core/cases/cases.h"
#include "core/isolation/fp_env.h"
#include "core/kernel/kernel_call.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// What every part reads, and the params and run they fill.
struct CallSetup {
  const ropecheck_impl_t& impl;
  const Case& c;
  const QkBuffers& in;
  const CallOptions& o;
  Geometry g;
  bool isolated;  // isolation copies every input and proves it unchanged itself
  KernelRun& r;
  ropecheck_apply_params_t p{};
  FpControl fp_before{};  // the floating-point state before the kernel's code ran (parts set up after the guard)
};

class CallPart {
 public:
  virtual ~CallPart() = default;
  // Fills its part of s.p. False when the call cannot be made; s.r then says
  // why (ropecheck's own error, or a kernel's cache build that failed).
  virtual bool set_up(CallSetup& s) = 0;
  // Right around the kernel's apply (an in-process watch).
  virtual void before_apply(CallSetup&) {}
  virtual void after_apply(CallSetup&) {}
  // After the call: what of its inputs an in-process kernel changed ("" none).
  virtual std::string changed(const CallSetup&) const { return {}; }
};

// s.r failed for a reason of ropecheck's own (never the kernel's): false.
bool refuse_call(CallSetup& s, std::string why);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_KERNEL_CALL_PARTS_CALL_PART_H_
